import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goTo, startDashboard, type Dashboard } from './start-dashboard.ts';

// Browser globals for the functions that run inside the page: the project's tsconfig has no DOM
// library, and adding it (a global) would hide DOM-only names used by mistake in core.
declare const window: any;
declare const document: any;
declare const MutationObserver: any;
declare const getComputedStyle: any;

const ROOT = join(import.meta.dirname, '..', '..');
const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');
const ASSETS = join(ROOT, 'renderer', 'dist', 'assets');
// Through the DevTools protocol: the dashboard's CSP forbids inline scripts, so addScriptTag would be refused.
const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PAGES = ['Overview', 'Providers', 'Routing', 'Keys', 'Usage', 'Requests', 'Sessions'] as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function runAxe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
}

/** Waits until the page shows what it fetched (no loading placeholder) and charts have drawn. */
async function settled(page: Page): Promise<void> {
  await page.getByText('Loading…').waitFor({ state: 'detached' });
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  // Charts animate in; screenshots and contrast checks want them drawn.
  await page.waitForTimeout(600);
}

const gzipSize = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

describe('every dashboard page in light and dark: screenshots, accessibility, keyboard, first load', () => {
  let d: Dashboard;

  beforeAll(async () => {
    d = await startDashboard();
    mkdirSync(SCREENSHOTS, { recursive: true });
    // Data for every page: successes on two providers, a fallback, an error, a streamed request.
    for (const model of ['gpt-4o-mini', 'gpt-4o', 'llama-3.3-70b', 'llama-3.1-8b', 'gpt-4o-mini']) {
      await d.pb.client.chat.completions.create({ model, messages: [{ role: 'user', content: `a request for ${model}` }] });
    }
    const stream = await d.pb.client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a streamed one' }] });
    for await (const _chunk of stream) void _chunk;
    // Sessions: a Claude Code session with a subagent, and a client naming its own session.
    const claude = (agent: string, parent?: string) => ({ 'X-Claude-Code-Session-Id': '5b1d0c9e-7a44-4c1e-9f1e-claude-e2e', 'X-Claude-Code-Agent-Id': agent, ...(parent ? { 'X-Claude-Code-Parent-Agent-Id': parent } : {}) });
    for (const [agent, parent] of [['main'], ['main'], ['explore-1', 'main'], ['explore-1', 'main'], ['main']] as [string, string?][]) {
      await d.pb.client.chat.completions.create({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: `work of ${agent}` }] }, { headers: claude(agent, parent) });
    }
    await d.pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'nightly' }] }, { headers: { 'X-Patchbay-Session': 'nightly-batch' } });
    d.openai.inject({ path: '/chat/completions', status: 500 });
    await d.pb.client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'this one fails' }] }).catch(() => undefined);
    await d.api('PUT', '/routing', { fallbacks: { 'gpt-4o-mini': ['groq/llama-3.1-8b-instant'] }, aliases: { 'fast-chat': ['gpt-4o-mini', 'llama-3.1-8b'] } });
  });
  afterAll(async () => {
    await d?.stop();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`${scheme}: each page is screenshotted with data and has no serious or critical axe violation`, async () => {
      const page = await d.open();
      await page.emulateMedia({ colorScheme: scheme });
      const serious: string[] = [];
      for (const title of PAGES) {
        await goTo(page, title);
        await settled(page);
        await page.screenshot({ path: join(SCREENSHOTS, `${title.toLowerCase()}-${scheme}.png`), fullPage: true });
        const violations = await runAxe(page);
        for (const v of violations) {
          const line = `${title} (${scheme}): ${v.impact} ${v.id}: ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`;
          if (v.impact === 'serious' || v.impact === 'critical') serious.push(line);
          else console.log(`[axe] ${line}`);
        }
      }
      expect(serious).toEqual([]);
      await page.close();
    });
  }

  it('Requests at 1024 x 700: the filters and Apply share one line, model ids take at most two lines, the log needs no sideways scroll', async () => {
    const page = await d.open();
    await goTo(page, 'Requests');
    await settled(page);
    const form = page.getByRole('form', { name: 'Filter requests' });
    const status = (await form.getByLabel('Status').boundingBox())!;
    const apply = (await form.getByRole('button', { name: 'Apply' }).boundingBox())!;
    expect(Math.abs(apply.y + apply.height - (status.y + status.height))).toBeLessThan(6);
    const layout = await page.evaluate(() => {
      const table = document.querySelector('table.clickable');
      // Lines of text in each row's Model cell: the distinct tops of its text's line boxes.
      const modelLines = [...table.querySelectorAll('tbody tr')].map((tr: any) => {
        const tops: number[] = [];
        const walker = document.createTreeWalker(tr.children[1], 4 /* NodeFilter.SHOW_TEXT */);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(node);
          for (const rect of range.getClientRects()) if (!tops.some((t) => Math.abs(t - rect.top) < 4)) tops.push(rect.top);
        }
        return tops.length;
      });
      const wrap = table.closest('.table-wrap');
      return { modelLines, overflow: wrap.scrollWidth - wrap.clientWidth };
    });
    expect(layout.modelLines.length).toBeGreaterThan(5);
    expect(Math.max(...layout.modelLines)).toBeLessThanOrEqual(2);
    expect(layout.overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it('Sessions: a session shows what it cost, opens its requests, and nests its subagents under their parent', async () => {
    const page = await d.open();
    await goTo(page, 'Sessions');
    await settled(page);
    const row = page.getByRole('row').filter({ hasText: 'Claude Code' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('2 agents');
    // At 1024 px the list fits beside the sidebar without a sideways scroll.
    expect(await page.evaluate(() => {
      const wrap = document.querySelector('.table-wrap');
      return wrap.scrollWidth - wrap.clientWidth;
    })).toBeLessThanOrEqual(0);
    await row.getByRole('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('cell', { name: /explore-1\W+subagent of main/ }).waitFor();
    await expect.poll(() => dialog.getByRole('row').count()).toBeGreaterThanOrEqual(1 + 2 + 1 + 5);
    expect(await dialog.textContent()).toContain('llama-3.3-70b');
    await page.screenshot({ path: join(SCREENSHOTS, 'sessions-detail-light.png') });
    await page.keyboard.press('Escape');
    await page.close();
  });

  it('the keyboard alone reaches a page through the sidebar, opens a dialog, and Escape closes it and returns focus', async () => {
    const page = await d.open();
    const focused = () => page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent?.trim() }));
    let reached = false;
    for (let i = 0; i < 12 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await focused()).text === 'Keys';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    expect(page.url()).toMatch(/\/ui\/keys$/);

    // On to the first key's Revoke button, which asks before acting.
    let onRevoke = false;
    for (let i = 0; i < 40 && !onRevoke; i++) {
      await page.keyboard.press('Tab');
      onRevoke = (await focused()).text === 'Revoke';
    }
    expect(onRevoke).toBe(true);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // Focus moved into the dialog (Radix's focus trap).
    expect(await page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Radix moves focus back in a timer after the dialog leaves the DOM, so wait for it to land.
    await expect.poll(focused).toEqual({ tag: 'BUTTON', text: 'Revoke' });
    // Nothing was revoked by opening and closing it.
    expect((await d.api('GET', '/keys')).body.data.every((k: { status: string }) => k.status === 'active')).toBe(true);
    await page.close();
  });

  it('first load: Overview shows with its provider table; load time and bundle sizes reported', async () => {
    const page = await d.context.newPage();
    // Through the DevTools protocol (not subject to the CSP): marks when the Overview heading and its provider table are on screen.
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
    await page.waitForFunction(() => (window as unknown as { __overviewShownAt?: number }).__overviewShownAt !== undefined);
    const shownAt = await page.evaluate(() => (window as unknown as { __overviewShownAt: number }).__overviewShownAt);
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    const firstLoadJs = loaded.filter((url) => url.endsWith('.js')).map((url) => basename(new URL(url).pathname));
    const allJs = readdirSync(ASSETS).filter((f) => f.endsWith('.js'));
    expect(firstLoadJs.length).toBeGreaterThan(0);
    for (const file of firstLoadJs) expect(allJs).toContain(file);
    const firstKb = firstLoadJs.reduce((sum, f) => sum + gzipSize(join(ASSETS, f)), 0) / 1024;
    const totalKb = allJs.reduce((sum, f) => sum + gzipSize(join(ASSETS, f)), 0) / 1024;
    const cssKb = readdirSync(ASSETS).filter((f) => f.endsWith('.css')).reduce((sum, f) => sum + gzipSize(join(ASSETS, f)), 0) / 1024;
    console.log(
      `[e2e] first load of /ui/ to Overview with its provider table: ${Math.round(shownAt)} ms after navigation start; ` +
        `JS gzipped: first load ${firstKb.toFixed(1)} KiB (${firstLoadJs.length} files), all pages ${totalKb.toFixed(1)} KiB (${allJs.length} files); CSS ${cssKb.toFixed(1)} KiB`,
    );
    // The time is printed, not asserted (the machine is shared): `node bench/dashboard-first-load.ts` measures it.
    expect(shownAt).toBeGreaterThan(0);
    await page.close();
  });
});
