// The dashboard's first load: from navigation start to the Overview heading with its provider table
// on screen, in the Debian Chromium the tests use (playwright-core), signed in, with the browser's
// cache off (every asset fetched as on a first visit). This was a 3 s bound in
// test/e2e/dashboard-pages.test.ts; the test now prints the figure and this measures it. Not part of
// npm test.
//
//   node bench/dashboard-first-load.ts [--rounds 7]
//
// The real Patchbay (composition root, real HTTP on loopback, SQLite) with the OpenAI and Groq
// emulators, the built dashboard (built first when a renderer source is newer than the last build),
// one Chromium; each round opens a new page. The first round is reported apart (Chromium and
// Patchbay warm up on it); the median, fastest and slowest are of the rounds after it.
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { startDashboard } from '../test/e2e/start-dashboard.ts';

// These run in the page (page.addInitScript / evaluate), where the DOM exists; this project's types are Node's.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };
declare const window: unknown;
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: unknown, options: { childList: boolean; subtree: boolean; characterData: boolean }): void;
}

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
const ROUNDS = Math.max(2, Number(values.rounds));
const ASSETS = join(import.meta.dirname, '..', 'renderer', 'dist', 'assets');
const gzipKb = (file: string) => gzipSync(readFileSync(join(ASSETS, file)), { level: 9 }).length / 1024;

const d = await startDashboard();
const shown: number[] = [];
const domReady: number[] = [];
let firstLoadJs: string[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const page = await d.context.newPage();
    const cdp = await d.context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.addInitScript(() => {
      const w = window as unknown as { __overviewShownAt?: number };
      const check = () => {
        if (w.__overviewShownAt !== undefined) return;
        const h1 = document.querySelector('h1');
        if (h1?.textContent === 'Overview' && document.querySelector('th[scope="row"]')) w.__overviewShownAt = performance.now();
      };
      new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await page.goto(`${d.pb.patchbay.url}/ui/`);
    await page.waitForFunction(() => (window as unknown as { __overviewShownAt?: number }).__overviewShownAt !== undefined, undefined, { timeout: 120_000 });
    shown.push(await page.evaluate(() => (window as unknown as { __overviewShownAt: number }).__overviewShownAt));
    domReady.push(await page.evaluate(() => (performance.getEntriesByType('navigation' as never)[0] as unknown as { domContentLoadedEventEnd: number }).domContentLoadedEventEnd));
    firstLoadJs = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((url) => url.endsWith('.js')).map((url) => new URL(url).pathname.split('/').at(-1)!));
    await page.close();
  }
} finally {
  await d.stop();
}

const rest = (xs: number[]) => xs.slice(1).sort((a, b) => a - b);
const median = (xs: number[]) => xs[Math.floor(xs.length / 2)];
const row = (name: string, xs: number[]) => `| ${name} | ${Math.round(xs[0])} | ${Math.round(median(rest(xs)))} | ${Math.round(rest(xs)[0])} | ${Math.round(rest(xs).at(-1)!)} |`;
const allJs = readdirSync(ASSETS).filter((f) => f.endsWith('.js'));
const css = readdirSync(ASSETS).filter((f) => f.endsWith('.css'));
const sum = (files: string[]) => files.reduce((total, f) => total + gzipKb(f), 0).toFixed(1);

console.log(`\nDashboard first load, ${ROUNDS} rounds (cache off), load average ${loadavg()[0].toFixed(1)} at the end (ms from navigation start):\n`);
console.log(`| to | first round | median of the other ${ROUNDS - 1} | fastest | slowest |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
console.log(row('DOMContentLoaded', domReady));
console.log(row('Overview with its provider table', shown));
console.log(`\nJS gzipped: first load ${sum(firstLoadJs)} KiB (${firstLoadJs.length} files), all pages ${sum(allJs)} KiB (${allJs.length} files); CSS ${sum(css)} KiB`);
