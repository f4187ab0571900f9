import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../scripts/build-renderer.js';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { launchChromium } from '../helpers/launch-chromium.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';
import { UPSTREAM_KEYS } from './start-dashboard.ts';

/**
 * A team's gateway: two replicas on one PostgreSQL, requests sent through each, and the dashboard of
 * one replica in real Chromium. Its Usage and Sessions pages show what both replicas served (before
 * the PostgreSQL rollups, both views answered 501 and the pages showed the error).
 */
describe('the dashboard on PostgreSQL shows the usage of every replica', { timeout: 60_000 }, () => {
  const openai = new OpenAiEmulator({ apiKey: UPSTREAM_KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: UPSTREAM_KEYS.GROQ_API_KEY });
  let cluster: TestPostgres;
  let browser: Browser;
  let a: TestPatchbay;
  let b: TestPatchbay;
  let page: Page;

  beforeAll(async () => {
    ensureRendererBuilt(process.execPath);
    browser = await launchChromium();
    cluster = await startPostgres();
    const databaseUrl = await cluster.createDatabase();
    const [openaiUrl, groqUrl] = await Promise.all([openai.start(), groq.start()]);
    const config = { providers: { openai: { baseUrl: `${openaiUrl}/v1` }, groq: { baseUrl: `${groqUrl}/openai/v1` } } };
    [a, b] = await Promise.all([0, 1].map(() => startPatchbay({ config, env: UPSTREAM_KEYS, databaseUrl })));
    // Replica A: a client naming its own session; replica B: a Claude Code session with a subagent.
    for (let i = 0; i < 3; i++) {
      await a.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `nightly ${i}` }] }, { headers: { 'X-Patchbay-Session': 'pg-nightly-on-a' } });
    }
    const claude = (agent: string, parent?: string) => ({ 'X-Claude-Code-Session-Id': 'pg-claude-on-b', 'X-Claude-Code-Agent-Id': agent, ...(parent ? { 'X-Claude-Code-Parent-Agent-Id': parent } : {}) });
    for (const [agent, parent] of [['main'], ['explore-1', 'main']] as [string, string?][]) {
      await b.client.chat.completions.create({ model: 'groq/llama-3.1-8b-instant', messages: [{ role: 'user', content: `work of ${agent}` }] }, { headers: claude(agent, parent) });
    }
    await Promise.all([a.patchbay.stores.usage.flushAsync(), b.patchbay.stores.usage.flushAsync()]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await page.goto(await a.patchbay.signInLink());
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([openai.close(), groq.close()]);
    await cluster?.stop();
  }, 60_000);

  const cellsOf = async (row: ReturnType<Page['locator']>) => (await row.locator('th, td').allInnerTexts()).map((t) => t.trim());

  it("Usage: the table per model has both replicas' models with their request counts", async () => {
    await page.goto(`${a.patchbay.url}/ui/usage`);
    const table = page.getByRole('table', { name: 'Usage by model' });
    const openaiRow = table.getByRole('row').filter({ hasText: 'openai/gpt-4o-mini' });
    const groqRow = table.getByRole('row').filter({ hasText: 'groq/llama-3.1-8b-instant' });
    await openaiRow.waitFor();
    await groqRow.waitFor();
    expect((await cellsOf(openaiRow)).slice(0, 3)).toEqual(['openai/gpt-4o-mini', '3', '0']);
    expect((await cellsOf(groqRow)).slice(0, 3)).toEqual(['groq/llama-3.1-8b-instant', '2', '0']);
    await expect(page.getByText(/not available|501|not_implemented/i).count()).resolves.toBe(0);
  });

  it("Sessions: both replicas' sessions, and the Claude Code one opens on its agents and requests", async () => {
    await page.goto(`${a.patchbay.url}/ui/sessions`);
    const nightly = page.getByRole('row').filter({ has: page.locator('button[title="pg-nightly-on-a"]') });
    const claude = page.getByRole('row').filter({ has: page.locator('button[title="pg-claude-on-b"]') });
    await nightly.waitFor();
    await claude.waitFor();
    expect(await cellsOf(nightly)).toEqual(expect.arrayContaining(['3']));
    expect((await cellsOf(claude)).join(' ')).toContain('llama-3.1-8b-instant');
    await claude.locator('button[title="pg-claude-on-b"]').click();
    const dialog = page.getByRole('dialog', { name: 'Session pg-claude-on-b' });
    await dialog.waitFor();
    // The agents: the subagent under its main agent.
    const agents = dialog.getByRole('table').first();
    await agents.getByRole('row').filter({ hasText: 'subagent of main' }).waitFor();
    expect(await agents.innerText()).toMatch(/main\s+1\b[\s\S]*explore-1\s*,\s*subagent of main\s+1\b/);
    // Its requests only (the session filter of the request log), each naming its agent.
    const requests = dialog.getByRole('table').last().locator('tbody tr');
    await expect.poll(() => requests.count()).toBe(2);
    expect((await requests.allInnerTexts()).join('\n')).toMatch(/explore-1[\s\S]*groq|groq[\s\S]*explore-1/);
  });
});
