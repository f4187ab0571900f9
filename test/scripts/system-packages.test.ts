import { describe, expect, it } from 'vitest';
import { needsPrivateKeyring, planSystemPackages, SYSTEM_PACKAGES } from '../../scripts/system-packages.js';

/** A machine where `present` lists what is installed (commands and files). */
const machine = (overrides: Partial<Parameters<typeof planSystemPackages>[0]> & { present?: string[] } = {}) => {
  const present = new Set(overrides.present ?? []);
  return {
    platform: 'linux',
    mode: 'test',
    secretServiceRunning: false,
    isRoot: true,
    packageManager: 'apt-get' as const,
    has: (probe: { command?: string; file?: string }) => present.has(probe.command ?? probe.file ?? ''),
    ...overrides,
  };
};
const EVERYTHING = ['dbus-run-session', 'gnome-keyring-daemon', '/usr/bin/chromium', 'pg_ctlcluster', 'caddy', 'certutil', 'curl', 'openssl', 'systemd-analyze', 'prometheus'];
/** What only the team deployment test and the Prometheus test need, present (most cases below are about the others). */
const TEAM = ['caddy', 'certutil', 'curl', 'openssl', 'systemd-analyze', 'prometheus'];

describe('planSystemPackages: what npm test and npm start install or ask for', () => {
  it('a fresh Debian container as root: apt-get update once, then install every missing package quietly', () => {
    expect(planSystemPackages(machine())).toEqual({
      action: 'install',
      packages: ['dbus', 'gnome-keyring', 'chromium', 'postgresql', 'caddy', 'libnss3-tools', 'curl', 'openssl', 'systemd', 'prometheus'],
      steps: [
        ['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'update', '-qq'],
        ['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', '--no-install-recommends', 'dbus', 'gnome-keyring', 'chromium', 'postgresql', 'caddy', 'libnss3-tools', 'curl', 'openssl', 'systemd', 'prometheus'],
      ],
    });
  });

  it('installs only what is missing, and nothing when all is there', () => {
    expect(planSystemPackages(machine({ present: ['dbus-run-session', '/usr/bin/chromium', 'pg_ctlcluster', ...TEAM] }))).toMatchObject({ action: 'install', packages: ['gnome-keyring'] });
    expect(planSystemPackages(machine({ present: [...EVERYTHING.slice(0, 3), ...TEAM] }))).toMatchObject({ action: 'install', packages: ['postgresql'] });
    expect(planSystemPackages(machine({ present: EVERYTHING.slice(0, 5) }))).toMatchObject({ action: 'install', packages: ['libnss3-tools', 'curl', 'openssl', 'systemd', 'prometheus'] });
    expect(planSystemPackages(machine({ present: EVERYTHING }))).toEqual({ action: 'none' });
  });

  it('npm start needs no browser', () => {
    expect(planSystemPackages(machine({ mode: 'start', present: ['dbus-run-session', 'gnome-keyring-daemon'] }))).toEqual({ action: 'none' });
    expect(planSystemPackages(machine({ mode: 'start' }))).toMatchObject({ action: 'install', packages: ['dbus', 'gnome-keyring'] });
  });

  it('a desktop session whose bus already offers the Secret Service needs no dbus or gnome-keyring', () => {
    expect(planSystemPackages(machine({ secretServiceRunning: true, present: ['/usr/bin/chromium', 'pg_ctlcluster', ...TEAM] }))).toEqual({ action: 'none' });
    expect(planSystemPackages(machine({ secretServiceRunning: true }))).toMatchObject({ packages: ['chromium', 'postgresql', 'caddy', 'libnss3-tools', 'curl', 'openssl', 'systemd', 'prometheus'] });
  });

  it('not root, or no apt-get: one line naming the packages and the command for this package manager; fatal for tests only', () => {
    const notRoot = planSystemPackages(machine({ isRoot: false, present: ['/usr/bin/chromium', 'pg_ctlcluster', ...TEAM] }));
    expect(notRoot).toMatchObject({ action: 'tell', packages: ['dbus', 'gnome-keyring'], fatal: true });
    expect(notRoot.action === 'tell' && notRoot.message).toContain('sudo apt-get install dbus gnome-keyring');
    const fedora = planSystemPackages(machine({ packageManager: 'dnf', present: EVERYTHING.slice(0, 2) }));
    expect(fedora.action === 'tell' && fedora.message).toContain('sudo dnf install chromium postgresql caddy nss-tools curl openssl systemd prometheus');
    const arch = planSystemPackages(machine({ isRoot: false, packageManager: 'pacman', mode: 'start' }));
    expect(arch).toMatchObject({ action: 'tell', fatal: false });
    expect(arch.action === 'tell' && arch.message).toContain('sudo pacman -S dbus gnome-keyring');
    for (const plan of [notRoot, fedora, arch]) expect(plan.action === 'tell' && plan.message).not.toContain('\n');
  });

  it('macOS and Windows have their own keychain: nothing to install', () => {
    expect(planSystemPackages(machine({ platform: 'darwin' }))).toEqual({ action: 'none' });
    expect(planSystemPackages(machine({ platform: 'win32', mode: 'start' }))).toEqual({ action: 'none' });
  });

  it('a package is added in one line of the list', () => {
    expect(SYSTEM_PACKAGES.map((p) => p.name)).toEqual(['dbus', 'gnome-keyring', 'chromium', 'postgresql', 'caddy', 'libnss3-tools', 'curl', 'openssl', 'systemd', 'prometheus']);
  });
});

describe('needsPrivateKeyring: which npm run patchbay commands get a private gnome-keyring', () => {
  it('serve on a laptop without a Secret Service does (providers set-key stores there)', () => {
    expect(needsPrivateKeyring(['serve'], {})).toBe(true);
    expect(needsPrivateKeyring(['providers', 'set-key', 'groq'], {})).toBe(true);
  });

  it('commands that never read a provider secret do not', () => {
    for (const command of ['ui', 'keys', 'usage', 'version', '--help', undefined]) expect(needsPrivateKeyring(command === undefined ? [] : [command], {}), String(command)).toBe(false);
  });

  it("a team's replica does not: secrets come from the secrets file or the environment", () => {
    expect(needsPrivateKeyring(['serve', '--secrets-file', '/etc/patchbay/secrets'], {})).toBe(false);
    expect(needsPrivateKeyring(['serve', '--secrets-file=/etc/patchbay/secrets'], {})).toBe(false);
    expect(needsPrivateKeyring(['serve'], { PATCHBAY_SECRETS_FILE: '/etc/patchbay/secrets' })).toBe(false);
    expect(needsPrivateKeyring(['serve', '--database', 'postgres://patchbay@db/patchbay'], {})).toBe(false);
    expect(needsPrivateKeyring(['serve'], { PATCHBAY_DATABASE_URL: 'postgres://patchbay@db/patchbay' })).toBe(false);
  });
});
