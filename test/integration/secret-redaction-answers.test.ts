import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

// A user's own OpenAI-compatible endpoint and its key, around a canary no encoding changes.
const CANARY = 'LEAKCANARY9d41be';
const KEY = `sk-own-${CANARY}0123456789`;
const KB = 1024;

const HEAD = '{"id":"chatcmpl-own","object":"chat.completion","created":1,"model":"own","choices":[{"index":0,"message":{"role":"assistant","content":"';

type Mode = 'small' | 'large' | 'late-error' | 'stream';

/** Writes `pieces` one at a time, each after the socket took the previous (so they leave as separate chunks). */
async function writeApart(res: ServerResponse, pieces: string[]): Promise<void> {
  for (const piece of pieces) {
    if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  res.end();
}

/** Text of `size` bytes with the key in it at `at`, split in two at `split` bytes into the key. */
function around(size: number, at: number, split: number): [string, string] {
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27)).slice(0, size);
  const text = filler.slice(0, at) + KEY + filler.slice(at);
  return [text.slice(0, at + split), text.slice(at + split)];
}

/**
 * Issue 34 (6): a provider key came back in 200 answers: a small answer quoting it, a large passed-
 * through answer quoting it, and a chunked answer whose `error` member (quoting it) came after the
 * 64 KB head, which reached the client as a 200 with the key. The upstream here answers 200 each
 * time, quoting the key it was sent, split across the chunks it writes.
 */
describe('a provider key quoted in a successful answer never reaches the client', () => {
  let server: Server;
  let mode: Mode = 'small';
  let pb: TestPatchbay;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const head = HEAD;
        const tail = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}';
        if (mode === 'small') {
          const body = `${head}Your key is ${KEY}, and its encoded form key%3D${encodeURIComponent(KEY)}.${tail}`;
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        } else if (mode === 'large') {
          // 130 KB: past the 64 KB head, so passed through. The head ends with the chunk that
          // crosses 64 KB, here in the middle of the key (so the key straddles the head and the
          // rest); the key again deep in the rest, split over two writes.
          const [a, b] = around(70 * KB, 64 * KB - 10 - head.length, 20);
          const [c, d] = around(60 * KB, 24 * KB + 100, 5);
          res.writeHead(200, { 'content-type': 'application/json' });
          void writeApart(res, [head + a.slice(0, 60 * KB), a.slice(60 * KB), b + c.slice(0, 4 * KB), c.slice(4 * KB), d + tail]);
        } else if (mode === 'late-error') {
          // 80 KB chunked: a head that looks like an answer, and after 70,000 bytes an error member quoting the key.
          res.writeHead(200, { 'content-type': 'application/json' });
          const filler = 'x'.repeat(70_000);
          void writeApart(res, [head, filler.slice(0, 35_000), filler.slice(35_000), `"}}],"error":{"message":"Incorrect API key provided: ${KEY.slice(0, 20)}`, `${KEY.slice(20)}","type":"invalid_request_error","code":"invalid_api_key"},"pad":"${'y'.repeat(9_000)}"}`]);
        } else {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const delta = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'own', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
          const event = delta(`the key: ${KEY}`);
          const cut = event.indexOf(CANARY) + 6;
          void writeApart(res, [delta('Hello. '), event.slice(0, cut), event.slice(cut), `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'own', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } })}\n\n`, 'data: [DONE]\n\n']);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    pb = await startPatchbay({ config: { providers: { own: { baseUrl: url, apiKeyEnv: 'OWN_API_KEY' } } }, env: { OWN_API_KEY: KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await new Promise((resolve) => server.close(resolve));
  });

  /** POSTs and reads every byte the client gets, whether the answer ends cleanly or is cut. */
  const ask = (stream = false): Promise<{ status: number; text: string; cut: boolean }> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify({ model: 'own/any-model', messages: [{ role: 'user', content: 'hi' }], stream });
      const req = httpRequest(`${pb.patchbay.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
        const parts: Buffer[] = [];
        let settled = false;
        const settle = (cut: boolean) => {
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString('utf8'), cut });
        };
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => settle(false));
        res.on('aborted', () => settle(true));
        res.on('error', () => settle(true));
        res.on('close', () => settle(!res.complete));
      });
      req.on('error', reject);
      req.end(payload);
    });

  it('a small 200 answer quoting the key (with Content-Length) reaches the client redacted', async () => {
    mode = 'small';
    const answer = await ask();
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(CANARY);
    expect(JSON.parse(answer.text).choices[0].message.content).toBe('Your key is [redacted], and its encoded form key%3D[redacted].');
  });

  it('a 130 KB passed-through answer quoting the key across chunk boundaries reaches the client redacted, otherwise byte for byte', async () => {
    mode = 'large';
    const answer = await ask();
    expect(answer).toMatchObject({ status: 200, cut: false });
    expect(answer.text).not.toContain(CANARY);
    const content = JSON.parse(answer.text).choices[0].message.content as string;
    expect(content.split('[redacted]')).toHaveLength(3);
    expect(content.replaceAll('[redacted]', '')).toBe(around(70 * KB, 64 * KB - 10 - HEAD.length, 20).join('').replace(KEY, '') + around(60 * KB, 24 * KB + 100, 5).join('').replace(KEY, ''));
    expect(usageRows(pb.patchbay).at(-1)).toMatchObject({ status: 200, completion_tokens: 7 });
  });

  it('an error member after the held head (a chunked 200) becomes a failure the client sees: the answer is cut, without the key', async () => {
    mode = 'late-error';
    const answer = await ask();
    expect(answer.status).toBe(200);
    expect(answer.cut).toBe(true);
    expect(answer.text).not.toContain(CANARY);
    expect(answer.text).not.toContain('"pad"');
    const row = usageRows(pb.patchbay).at(-1)!;
    expect(row.status).toBe(502);
    expect(String(row.error_type)).toMatch(/^answer_/);
    expect(JSON.stringify(row)).not.toContain(CANARY);
  });

  it('a streamed answer quoting the key, split across two upstream chunks, reaches the client redacted', async () => {
    mode = 'stream';
    const answer = await ask(true);
    expect(answer).toMatchObject({ status: 200, cut: false });
    expect(answer.text).toContain('the key: [redacted]');
    expect(answer.text).not.toContain(CANARY);
    expect(answer.text).toContain('data: [DONE]');
  });

  it('the key is nowhere in what Patchbay logged or recorded', () => {
    expect(JSON.stringify(usageRows(pb.patchbay))).not.toContain(CANARY);
    expect(pb.logs.join('\n')).not.toContain(CANARY);
  });
});
