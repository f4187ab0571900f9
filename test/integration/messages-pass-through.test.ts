import Anthropic from '@anthropic-ai/sdk';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import type { EmulatorContext } from '../emulators/emulator-server.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * Anthropic in, Anthropic out: the upstream's answer reaches the client byte for byte (JSON and
 * SSE), the request goes upstream with only the model id replaced and the caller's
 * anthropic-version / anthropic-beta headers; and GET /v1/models answers the SDK in Anthropic's shape.
 */

/** The Anthropic emulator, keeping the bytes of each answer body it wrote. */
class RecordingAnthropic extends AnthropicEmulator {
  readonly bodies: Buffer[] = [];

  protected override async handle(ctx: EmulatorContext): Promise<void> {
    // Wrapped through a loose view of the response: Node's overloads for write/end do not take a spread.
    const res = ctx.res as unknown as { write: (...args: unknown[]) => boolean; end: (...args: unknown[]) => ServerResponse };
    const parts: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = (chunk: unknown, ...rest: unknown[]) => {
      if (chunk) parts.push(Buffer.from(chunk as string));
      return write(chunk, ...rest);
    };
    res.end = (chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') parts.push(Buffer.from(chunk as string));
      this.bodies.push(Buffer.concat(parts));
      return end(chunk, ...rest);
    };
    await super.handle(ctx);
  }
}

let emulator: RecordingAnthropic;
let pb: TestPatchbay;
let anthropic: Anthropic;

beforeAll(async () => {
  emulator = new RecordingAnthropic({ apiKey: 'sk-ant-pass' });
  const url = await emulator.start();
  pb = await startPatchbay({ config: { providers: { anthropic: { baseUrl: `${url}/v1` } } }, env: { ANTHROPIC_API_KEY: 'sk-ant-pass' } });
  anthropic = new Anthropic({ baseURL: pb.patchbay.url, apiKey: pb.key, maxRetries: 0 });
});
afterAll(async () => {
  await pb.stop();
  await emulator.close();
});

async function raw(body: unknown, headers: Record<string, string> = {}): Promise<Buffer> {
  const response = await fetch(`${pb.patchbay.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': pb.key, 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('pass-through to Anthropic', () => {
  const body = { model: 'claude-haiku-4-5', max_tokens: 100, system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'Hello bytes' }] };

  it('JSON: the client gets the upstream body byte for byte; upstream got the caller body with only the model replaced', async () => {
    const received = await raw(body, { 'anthropic-beta': 'prompt-caching-2024-07-31,interleaved-thinking-2025-05-14' });
    expect(received.equals(emulator.bodies[emulator.bodies.length - 1])).toBe(true);
    const sent = emulator.requests[emulator.requests.length - 1];
    expect(sent.body).toEqual({ ...body, model: 'claude-haiku-4-5-20251001' });
    expect(sent.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,interleaved-thinking-2025-05-14');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('SSE: the client gets the upstream event stream byte for byte', async () => {
    const received = await raw({ ...body, stream: true });
    expect(received.toString()).toContain('event: message_start');
    expect(received.equals(emulator.bodies[emulator.bodies.length - 1])).toBe(true);
  });

  it('a replayed thinking block without a signature (written by another upstream) is not forwarded', async () => {
    await raw({ ...body, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'from elsewhere', signature: '' }, { type: 'text', text: 'a' }] }, { role: 'user', content: 'again' }] });
    const sent = emulator.requests[emulator.requests.length - 1].body as { messages: { content: unknown }[] };
    expect(sent.messages[1].content).toEqual([{ type: 'text', text: 'a' }]);
  });
});

describe('GET /v1/models', () => {
  it('answers the Anthropic SDK (anthropic-version) in Anthropic’s list shape', async () => {
    const page = await anthropic.models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids).toContain('anthropic/claude-haiku-4-5-20251001');
    expect(page.data[0]).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const one = await anthropic.models.retrieve('claude-haiku-4-5');
    expect(one).toMatchObject({ type: 'model', id: 'claude-haiku-4-5' });
  });

  it('answers the openai client in OpenAI’s shape', async () => {
    const list = await pb.client.models.list();
    expect(list.data[0]).toMatchObject({ object: 'model' });
  });
});
