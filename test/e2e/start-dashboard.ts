import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureRendererBuilt } from '../../scripts/build-renderer.js';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { launchChromium } from '../helpers/launch-chromium.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

export const UPSTREAM_KEYS = { OPENAI_API_KEY: 'sk-e2e-openai-upstream', GROQ_API_KEY: 'gsk-e2e-groq-upstream' };

export interface Dashboard {
  pb: TestPatchbay;
  openai: OpenAiEmulator;
  groq: GroqEmulator;
  browser: Browser;
  /** A browser context signed in to the dashboard (its session cookie set through the one-time link). */
  context: BrowserContext;
  /** Opens a dashboard page (overview, providers, ...) in the signed-in context. */
  open(path?: string): Promise<Page>;
  /** A /api call with the admin token, as the CLI makes it. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * The real Patchbay (real HTTP, SQLite) with OpenAI and Groq emulators behind it, the built
 * dashboard, and a Chromium signed in through a one-time link as a user is.
 */
export async function startDashboard(): Promise<Dashboard> {
  // Once per file, and only when a renderer source is newer than the last build.
  ensureRendererBuilt(process.execPath);
  // First: without a browser nothing else is worth starting (and nothing is left running).
  const browser = await launchChromium();
  const openai = new OpenAiEmulator({ apiKey: UPSTREAM_KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: UPSTREAM_KEYS.GROQ_API_KEY });
  const [openaiUrl, groqUrl] = await Promise.all([openai.start(), groq.start()]);
  const pb = await startPatchbay({
    config: { providers: { openai: { baseUrl: `${openaiUrl}/v1` }, groq: { baseUrl: `${groqUrl}/openai/v1` } } },
    env: UPSTREAM_KEYS,
  });
  const context = await browser.newContext({ viewport: { width: 1024, height: 700 } });
  // Fail a missing element within a minute (generous: the machine is shared), not the whole test's time.
  context.setDefaultTimeout(60_000);
  const first = await context.newPage();
  await first.goto(pb.patchbay.createSignInUrl());
  await first.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await first.close();

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${pb.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  return {
    pb,
    openai,
    groq,
    browser,
    context,
    api,
    async open(path = '') {
      const page = await context.newPage();
      await page.goto(`${pb.patchbay.url}/ui/${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      return page;
    },
    async stop() {
      await browser.close();
      await pb.stop();
      await Promise.all([openai.close(), groq.close()]);
    },
  };
}

/** Clicks a page's link in the sidebar, as a user moves between pages. */
export async function goTo(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}
