import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * /v1/messages streams send Anthropic's `ping` event while the upstream is silent, so Claude Code
 * and proxies with idle timeouts keep the connection. The upstream is held silent mid-answer until
 * the client has seen a ping (or 9 s passed, when the test then fails): no wall-clock sleep.
 */

let gemini: GeminiEmulator;
let pb: TestPatchbay;

beforeAll(async () => {
  gemini = new GeminiEmulator({ apiKey: 'gm-ping' });
  const url = await gemini.start();
  pb = await startPatchbay({ config: { providers: { google: { baseUrl: `${url}/v1beta` } } }, env: { GEMINI_API_KEY: 'gm-ping' } });
});
afterAll(async () => {
  await pb?.stop();
  await gemini?.close();
});

describe('keep-alive pings on /v1/messages', () => {
  it('a silent upstream mid-answer gets ping events, and the answer then completes', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const bound = setTimeout(release, 9000);
    gemini.inject({ path: 'streamGenerateContent', hold: { afterEvents: 2, until: released } });
    // The ping that follows message_start is the encoder's, as Anthropic sends it; keep-alive pings come after content began.
    const pingsInContent = (text: string) => text.slice(Math.max(0, text.indexOf('event: content_block_delta'))).split('event: ping').length - 1;

    const response = await fetch(`${pb.patchbay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': pb.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gemini-2.5-flash', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'one two three four five six' }] }),
    });
    expect(response.status).toBe(200);
    let text = '';
    const decoder = new TextDecoder();
    for await (const bytes of response.body!) {
      text += decoder.decode(bytes, { stream: true });
      if (text.includes('event: content_block_delta') && pingsInContent(text) > 0) release();
    }
    clearTimeout(bound);

    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    // A keep-alive ping came inside the answer (after content began, before more of it), which then ended normally.
    const keepAlive = events.indexOf('ping', events.indexOf('content_block_delta'));
    expect(events.indexOf('content_block_delta')).toBeGreaterThan(0);
    expect(keepAlive).toBeGreaterThan(events.indexOf('content_block_delta'));
    expect(events.slice(keepAlive)).toContain('content_block_delta');
    expect(events.at(-1)).toBe('message_stop');
    expect(text).toContain('event: ping\ndata: {"type":"ping"}\n\n');
  });
});
