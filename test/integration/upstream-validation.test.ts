import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../emulators/emulator-server.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEY = 'sk-test-validation-0123456789';

describe('upstream answers are validated: errors inside a 200, SSE parsed per the spec', () => {
  const openai = new OpenAiEmulator({ apiKey: KEY });
  let pb: TestPatchbay;

  beforeAll(async () => {
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${await openai.start()}/v1` } } }, env: { OPENAI_API_KEY: KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await openai.close();
  });

  const lastRow = () => usageRows(pb.patchbay).at(-1)! as { attempts: { model: string; status: number }[]; status: number };

  it('a 200 whose body is a server_error is a failed attempt: Patchbay falls back and records it', async () => {
    openai.inject({ status: 500, errorWith200: true });
    const { data, response } = await pb.client.chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }, { headers: { 'x-patchbay-fallback': 'gpt-4o' } })
      .withResponse();
    expect(data.choices[0].message.content).toBe('You said: hello');
    expect(data.model).toMatch(/^gpt-4o-2024/);
    expect(response.headers.get('x-patchbay-provider')).toBe('openai');
    expect(lastRow().attempts.map((a) => [a.model, a.status])).toEqual([['gpt-4o-mini', 500], ['gpt-4o', 200]]);
  });

  it('a 200 whose body is an invalid_request_error is the request\'s problem: 400 to the client, no fallback', async () => {
    openai.inject({ status: 400, errorWith200: true });
    const error = (await pb.client.chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }, { headers: { 'x-patchbay-fallback': 'gpt-4o' } })
      .catch((e: unknown) => e)) as { status: number; error: { message: string; type: string } };
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ message: 'openai: Invalid request (injected).', type: 'invalid_request_error' });
    expect(lastRow().attempts).toHaveLength(1);
  });

  const framings: [string, NonNullable<Fault['sseFraming']>][] = [
    ['multi-line data events', { multiLine: true }],
    ['CRLF line endings', { lineEnding: '\r\n', multiLine: true }],
    ['CR line endings', { lineEnding: '\r', multiLine: true }],
    ['comments and unknown fields', { comments: true }],
    ['data: without the space', { noSpace: true, multiLine: true }],
    ['all of it, written one byte at a time', { lineEnding: '\r\n', multiLine: true, comments: true, noSpace: true, writeBytes: 1 }],
  ];
  for (const [name, sseFraming] of framings) {
    it(`a stream with ${name} reaches the openai client chunk by chunk`, async () => {
      openai.inject({ sseFraming });
      const stream = await pb.client.chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'one two three four' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const contents: string[] = [];
      let usage: unknown = null;
      let finish: string | null = null;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        for (const choice of chunk.choices) {
          if (choice.delta.content) contents.push(choice.delta.content);
          finish = choice.finish_reason ?? finish;
        }
      }
      // One delta per word (the emulator's split), each parsed, none merged or lost.
      expect(contents).toEqual(['You', ' said:', ' one', ' two', ' three', ' four']);
      expect(finish).toBe('stop');
      expect(usage).toMatchObject({ completion_tokens: 6 });
    });
  }
});
