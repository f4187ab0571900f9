import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium: `npm test` installs it on Linux (scripts/ensure-setup.js). */
export const CHROMIUM_PATH = process.env.PATCHBAY_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Starts a headless Chromium for the dashboard's end-to-end tests. A missing browser is a failure
 * with the fix in its message, never a silent skip: a skipped suite looks like a passing one.
 */
export async function launchChromium(options: { args?: string[]; env?: Record<string, string> } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The dashboard's browser tests need Chromium at ${CHROMIUM_PATH}, which is missing. Install it (Debian/Ubuntu: \`sudo apt-get install chromium\`; \`npm test\` run as root installs it) or point PATCHBAY_CHROMIUM at a Chromium binary.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-component-update', '--disable-sync', ...(options.args ?? [])],
    // HOME decides the NSS database Chromium trusts certificates from (a test's own CA goes there).
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
}
