import OpenAI from 'openai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createPatchbay } from '../../core/app/create-patchbay.ts';
import type { PatchbayOptions } from '../../core/app/patchbay.ts';
import { usageRows } from '../helpers/start-patchbay.ts';

/**
 * An OpenAI-compatible upstream that never finishes its answer: it writes as fast as its socket
 * takes bytes (waiting for 'drain' like a well-behaved server), up to a safety stop so that a
 * Patchbay without bounds still ends the test instead of eating the machine's memory. The provider
 * emulators in test/emulators/ always finish their answers, hence this one.
 */
class EndlessUpstream {
  private server: Server | null = null;
  /** Bytes handed to the socket for the current answer. */
  written = 0;
  /** Whether the current answer's write waited for 'drain' (the reader stopped pulling) for at least 200 ms. */
  blocked = false;
  /** Requests received so far (the current answer's fields below are set when one arrives). */
  requests = 0;
  /** Set when Patchbay closed the connection of the current answer. */
  closed: Promise<void> = Promise.resolve();
  private readonly safetyStopBytes: number;
  constructor(safetyStopBytes: number) {
    this.safetyStopBytes = safetyStopBytes;
  }

  async start(write: (res: ServerResponse, stream: boolean) => { head: string; piece: string }): Promise<string> {
    this.server = createServer((req, res) => {
      // Patchbay asks an OpenAI-compatible provider for its models at start (GET /models), as
      // a real one answers it: an empty list here, so the endless answers below stay the only POSTs.
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
        this.written = 0;
        this.blocked = false;
        this.requests++;
        let onClose!: () => void;
        this.closed = new Promise<void>((resolve) => (onClose = resolve));
        res.on('close', onClose);
        const { head, piece } = write(res, stream);
        res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
        res.write(head);
        const pump = () => {
          while (!res.destroyed) {
            if (this.written >= this.safetyStopBytes) return void res.end(stream ? '' : '"}}]}');
            this.written += piece.length;
            if (!res.write(piece)) {
              const waitingSince = Date.now();
              res.once('drain', () => {
                if (Date.now() - waitingSince >= 200) this.blocked = true;
                pump();
              });
              const check = setInterval(() => {
                if (Date.now() - waitingSince >= 200) this.blocked = true;
                if (res.destroyed || res.writableLength === 0) clearInterval(check);
              }, 50);
              return;
            }
          }
        };
        pump();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const MB = 1024 * 1024;
const SAFETY_STOP = 96 * MB;

/** The real server through the composition root, with a user-defined provider at the upstream and small limits. */
async function startWithLimits(baseUrl: string, limits: PatchbayOptions['limits'], server: Record<string, number> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-memory-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ server, providers: { local: { baseUrl }, anthropic: { baseUrl } } }));
  const patchbay = await createPatchbay({ dataDir, host: '127.0.0.1', port: 0, env: { ANTHROPIC_API_KEY: 'sk-ant-test' }, keychainService: `patchbay-test-${process.pid}-memory`, limits, log: () => {} });
  const key = patchbay.firstKey!;
  return {
    patchbay,
    key,
    client: new OpenAI({ baseURL: `${patchbay.url}/v1`, apiKey: key, maxRetries: 0, timeout: 120_000 }),
    async stop() {
      await patchbay.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('bounded memory against upstreams and clients that never finish', () => {
  const upstream = new EndlessUpstream(SAFETY_STOP);
  let running: { stop(): Promise<void> } | null = null;
  afterEach(async () => {
    await running?.stop();
    running = null;
    await upstream.stop();
  });
  afterAll(() => upstream.stop());

  // A translated answer is read whole before it is translated, so it keeps the limit; an answer in
  // the client's own protocol is passed through instead (pass-through-answers.test.ts).
  it('cuts a translated answer that never ends at the size limit: a 502 naming the provider and the limit, the upstream call closed', async () => {
    const url = await upstream.start(() => ({ head: '{"id":"msg_x","type":"message","role":"assistant","content":[{"type":"text","text":"', piece: 'a'.repeat(64 * 1024) }));
    const started = await startWithLimits(url, { maxAnswerBytes: 1 * MB });
    running = started;
    const error = (await started.client.chat.completions.create({ model: 'anthropic/claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/anthropic/);
    expect(error.message).toMatch(/1 MB/);
    await upstream.closed;
    // Cut near the limit, not read to the upstream's safety stop.
    expect(upstream.written).toBeLessThan(16 * MB);
    const row = usageRows(started.patchbay).at(-1)!;
    expect(row.status).toBe(502);
  });

  it('cuts a stream whose event never ends (one line without a newline) at the event limit, with a 502 naming the limit', async () => {
    const url = await upstream.start(() => ({ head: 'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"', piece: 'a'.repeat(64 * 1024) }));
    const started = await startWithLimits(url, { maxEventBytes: 1 * MB });
    running = started;
    const error = (await started.client.chat.completions
      .create({ model: 'local/endless', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .then(async (stream) => {
        for await (const _ of stream) void _;
        return null;
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/local.*1 MB/);
    await upstream.closed;
    expect(upstream.written).toBeLessThan(16 * MB);
  });

  it('stops reading the upstream while a streaming client does not read, then drops the client after the stall timeout and keeps its usage row', async () => {
    const event = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'b'.repeat(900) } }] })}\n\n`;
    const url = await upstream.start(() => ({ head: event, piece: event.repeat(16) }));
    const started = await startWithLimits(url, {}, { clientStallTimeoutMs: 1500 });
    running = started;
    const { port } = new URL(started.patchbay.url);
    const body = JSON.stringify({ model: 'local/endless', messages: [{ role: 'user', content: 'hi' }], stream: true });
    // A raw client that sends its request and never reads a byte of the answer.
    const socket: Socket = connect(Number(port), '127.0.0.1');
    socket.pause();
    const clientClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const requestsBefore = upstream.requests;
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${started.key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    // The upstream has the request (it is writing the answer); then, past the stall timeout, the
    // client is dropped, the upstream call closed, the request recorded.
    await vi.waitFor(() => expect(upstream.requests).toBe(requestsBefore + 1), { timeout: 60_000, interval: 10 });
    await upstream.closed;
    // Before that, the upstream waited in TCP: Patchbay had stopped reading it.
    expect(upstream.blocked).toBe(true);
    // All the upstream could write: the socket buffers along the way (kernel and Node) and Patchbay's
    // small queue, not an amount growing with time (without backpressure: 75 MB by now, in this process).
    expect(upstream.written).toBeLessThan(24 * MB);
    // The client's connection was closed too: reading what the kernel still holds ends in its close.
    socket.on('data', () => {});
    socket.resume();
    await clientClosed;
    const row = usageRows(started.patchbay).at(-1)!;
    expect(row).toMatchObject({ status: 499, error_type: 'client_stalled', provider: 'local', stream: 1 });
    socket.destroy();
  });
});
