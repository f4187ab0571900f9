// What Patchbay needs from a Linux system beyond Node, and what to do when it is missing. Pure, so
// the decision is unit-tested (test/scripts/system-packages.test.ts); scripts/ensure-setup.js probes
// the machine and carries the plan out. Plain JavaScript for the same reason as ensure-setup.js.

/**
 * One line per package: the package name (Debian's; `elsewhere` names it for dnf and pacman when
 * theirs differs), the modes that need it, how to tell it is there, and whether a running desktop
 * keychain makes it unneeded.
 */
export const SYSTEM_PACKAGES = [
  { name: 'dbus', modes: ['test', 'start'], command: 'dbus-run-session', keychain: true },
  { name: 'gnome-keyring', modes: ['test', 'start'], command: 'gnome-keyring-daemon', keychain: true },
  { name: 'chromium', modes: ['test'], file: '/usr/bin/chromium' },
  // The PostgreSQL store tests start a throwaway cluster; Debian's postgresql-common installs pg_ctlcluster.
  { name: 'postgresql', modes: ['test'], command: 'pg_ctlcluster' },
  // The team deployment test puts a real TLS reverse proxy in front of the replicas (docs/team.md's Caddyfile).
  { name: 'caddy', modes: ['test'], command: 'caddy' },
  // certutil: that test's Chromium trusts Caddy's local CA through an NSS database of its own.
  { name: 'libnss3-tools', modes: ['test'], command: 'certutil', elsewhere: { dnf: 'nss-tools', pacman: 'nss' } },
  // What docs/team.md's commands use (the test runs them): curl for /health, openssl for the admin
  // token, systemd-analyze to verify the unit file (a container has none of them by default).
  { name: 'curl', modes: ['test'], command: 'curl' },
  { name: 'openssl', modes: ['test'], command: 'openssl' },
  { name: 'systemd', modes: ['test'], command: 'systemd-analyze' },
  // The /metrics test has Debian's real Prometheus scrape a running Patchbay and answer a PromQL query.
  { name: 'prometheus', modes: ['test'], command: 'prometheus' },
];

/**
 * Whether `npm start` / `npm run patchbay -- CMD` wraps Patchbay in a private D-Bus session with
 * gnome-keyring (a Linux without a Secret Service). Only commands that may read or store a provider
 * secret in the keychain get one, and never a team's replica: with a secrets file or a team database
 * the secrets come from the file or the environment (docs/team.md), so a keyring would be a process
 * tree for nothing and a second place for secrets.
 * @param {string[]} args the CLI's arguments (the command first)
 * @param {Record<string, string | undefined>} env
 */
export function needsPrivateKeyring(args, env) {
  const noKeychainCommands = ['ui', 'keys', 'usage', 'version', '--version', '-v', 'help', '--help', '-h', undefined];
  if (noKeychainCommands.includes(args[0])) return false;
  const named = (flag) => args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  if (named('--secrets-file') || env.PATCHBAY_SECRETS_FILE) return false;
  if (named('--database') || env.PATCHBAY_DATABASE_URL) return false;
  return true;
}

const INSTALL_HINTS = {
  'apt-get': (names) => `sudo apt-get install ${names}`,
  dnf: (names) => `sudo dnf install ${names}`,
  pacman: (names) => `sudo pacman -S ${names}`,
};

/**
 * @param {{ platform: string, mode: string, secretServiceRunning: boolean, has: (probe: { command?: string, file?: string }) => boolean,
 *           isRoot: boolean, packageManager: 'apt-get' | 'dnf' | 'pacman' | null }} machine
 * @returns {{ action: 'none' } | { action: 'install', packages: string[], steps: string[][] } |
 *           { action: 'tell', packages: string[], message: string, fatal: boolean }}
 */
export function planSystemPackages(machine) {
  if (machine.platform !== 'linux') return { action: 'none' };
  const missingPackages = SYSTEM_PACKAGES.filter(
    (pkg) => pkg.modes.includes(machine.mode) && !(pkg.keychain && machine.secretServiceRunning) && !machine.has({ command: pkg.command, file: pkg.file }),
  );
  const missing = missingPackages.map((pkg) => pkg.name);
  if (missing.length === 0) return { action: 'none' };
  if (machine.isRoot && machine.packageManager === 'apt-get') {
    return {
      action: 'install',
      packages: missing,
      steps: [
        // Another apt-get at work (a machine's unattended upgrades at boot, a second checkout's
        // npm test) holds dpkg's lock: wait for it up to five minutes rather than fail at once.
        ['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'update', '-qq'],
        ['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', '--no-install-recommends', ...missing],
      ],
    };
  }
  const names = missingPackages.map((pkg) => pkg.elsewhere?.[machine.packageManager] ?? pkg.name).join(' ');
  const hint = (INSTALL_HINTS[machine.packageManager] ?? INSTALL_HINTS['apt-get'])(names);
  // The tests cannot run without these; Patchbay itself can (provider keys then come from environment variables).
  const fatal = machine.mode === 'test';
  const message = fatal
    ? `The tests need ${names}, which this machine lacks: install them with "${hint}" (or run npm test as root with apt-get, which installs them), then run npm test again.`
    : `No keychain (Secret Service) on this machine and ${names} missing: provider keys come from environment variables only; "${hint}" lets Patchbay keep them in a keyring.`;
  return { action: 'tell', packages: missing, message, fatal };
}
