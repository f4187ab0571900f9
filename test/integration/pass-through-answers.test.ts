import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type ClientRequest, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ENV, NODE_FLAGS } from '../../bin/node-flags.js';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KB = 1024;
const MB = 1024 * KB;

/** Waits until a response can take more, or is gone; leaves no listener behind (one wait per full buffer). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');

/** The answer of each protocol around a long text: what comes before it, and the end with the usage. */
const SHAPES = {
  '/v1/chat/completions': {
    head: '{"id":"chatcmpl-big","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"',
    tail: (reason: string) => `"},"finish_reason":"${reason}"}],"usage":{"prompt_tokens":12,"completion_tokens":345678,"total_tokens":345690}}`,
  },
  '/v1/messages': {
    head: '{"id":"msg_big","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"',
    tail: () => '"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":345678}}',
  },
  '/v1/responses': {
    head: '{"id":"resp_big","object":"response","created_at":1,"status":"completed","error":null,"model":"gpt-4o","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"',
    tail: () => '","annotations":[]}]}],"usage":{"input_tokens":12,"output_tokens":345678,"total_tokens":345690}}',
  },
} as const;

/** Text with JSON escapes in it (an escaped quote, an escaped backslash, a non-ASCII letter), 64 KB a piece. */
const PIECE = Buffer.from('lorem \\"ipsum\\" \\\\ dolor é '.repeat(64 * KB / 32).slice(0, 64 * KB - 1) + ' ');

interface AnswerPlan {
  /** Bytes of text between the head and the tail. */
  size: number;
  /** Stop after this many bytes of text until `release` is called (or 10 s passed). */
  holdAt?: number;
  /** Never finish: after `size` bytes the upstream says nothing more and keeps the connection open. */
  stall?: boolean;
  /** Chat's finish reason as the upstream writes it. */
  finishReason?: string;
  /** End the body after the text, without the JSON's end (a clean end of an incomplete answer). */
  truncate?: boolean;
  /** The first answer is a 200 whose body is 100 KB of HTML, not JSON; the next ones are answers. */
  htmlFirst?: boolean;
}

/**
 * A raw loopback upstream speaking the three protocols' non-streaming answers, of any size, each
 * written as the socket takes it ('drain') and hashed as written, so the test can compare what
 * the client got without holding either copy.
 */
class LargeAnswerUpstream {
  private server: Server | null = null;
  plan: AnswerPlan = { size: 0 };
  written = 0;
  digest = '';
  /** Whether the held answer was released by the timer: the client had received nothing while the upstream waited. */
  releasedByTimer = false;
  /** Requests received since the plan was set. */
  requests = 0;
  /** Resolves when the connection of the latest answer closed (ended or cut). */
  closed: Promise<void> = Promise.resolve();
  private releaseHold: (() => void) | null = null;
  private readonly open = new Set<ServerResponse>();

  release(): void {
    this.releaseHold?.();
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        if ((JSON.parse(body) as { stream?: boolean }).stream) void this.stream(res);
        else void this.answer(req.url as keyof typeof SHAPES, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  private async answer(path: keyof typeof SHAPES, res: ServerResponse): Promise<void> {
    const shape = SHAPES[path];
    const plan = this.plan;
    const hash = createHash('sha256');
    this.written = 0;
    this.releasedByTimer = false;
    this.open.add(res);
    let onClose!: () => void;
    this.closed = new Promise<void>((resolve) => (onClose = resolve));
    res.on('close', () => {
      this.open.delete(res);
      onClose();
    });
    if (plan.htmlFirst && this.requests++ === 0) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body>${'<p>maintenance</p>'.repeat(6000)}</body></html>`);
      return;
    }
    const write = async (bytes: Buffer) => {
      hash.update(bytes);
      this.written += bytes.length;
      if (!res.write(bytes)) await drained(res);
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    await write(Buffer.from(shape.head));
    let text = 0;
    while (text < plan.size && !res.destroyed) {
      if (plan.holdAt !== undefined && text >= plan.holdAt && this.releaseHold === null) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.releasedByTimer = true;
            resolve();
          }, 10_000);
          this.releaseHold = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      const piece = plan.size - text >= PIECE.length ? PIECE : Buffer.alloc(plan.size - text, 'x');
      await write(piece);
      text += piece.length;
    }
    this.releaseHold = null;
    if (plan.stall || res.destroyed) return;
    if (plan.truncate) {
      this.digest = hash.digest('hex');
      return void res.end();
    }
    const tail = Buffer.from(shape.tail(plan.finishReason ?? 'stop'));
    hash.update(tail);
    this.written += tail.length;
    this.digest = hash.digest('hex');
    res.end(tail);
  }

  /** A chat stream of `plan.size` bytes of text in 64 KB events, ending with its usage and [DONE]. */
  private async stream(res: ServerResponse): Promise<void> {
    const event = Buffer.from(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${PIECE.toString()}"}}]}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let text = 0; text < this.plan.size && !res.destroyed; text += PIECE.length) {
      if (!res.write(event)) await drained(res);
    }
    res.end('data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\ndata: [DONE]\n\n');
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  digest: string;
  /** The last bytes, to read the answer's end without holding the answer. */
  end: string;
  /** Set when the connection was cut before the answer ended. */
  cut: boolean;
}

/** POSTs to Patchbay and reads the answer as it comes, hashing it; `onBytes` hears the running count. */
function post(url: string, path: string, key: string, body: object, onBytes?: (received: number, req: ClientRequest) => void, headers: Record<string, string> = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } }, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      let end = '';
      let settled = false;
      const settle = (cut: boolean) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode!, headers: res.headers, bytes, digest: hash.digest('hex'), end, cut });
      };
      res.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
        end = (end + chunk.toString('latin1')).slice(-512);
        onBytes?.(bytes, req);
      });
      res.on('end', () => settle(false));
      res.on('aborted', () => settle(true));
      res.on('error', () => settle(true));
      res.on('close', () => settle(!res.complete));
    });
    req.on('error', (error) => (req.destroyed && (error as { code?: string }).code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(payload);
  });
}

/**
 * The same request over a raw socket, for an answer that is cut: Node's HTTP client discards what
 * it had parsed but not yet emitted when the connection closes early, so counting its 'data' would
 * miss the answer's last bytes. This reads every byte the socket delivers, then undoes the chunked
 * framing; `cut` is set when the final zero-size chunk never came.
 */
function postRaw(url: string, path: string, key: string, body: object): Promise<{ status: number; bytes: number; cut: boolean }> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const pieces: Buffer[] = [];
    socket.on('data', (piece: Buffer) => pieces.push(piece));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(pieces);
      const headEnd = raw.indexOf('\r\n\r\n');
      const head = raw.subarray(0, headEnd).toString('latin1');
      const status = Number(head.split(' ')[1]);
      let at = headEnd + 4;
      let bytes = 0;
      let cut = true;
      if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return resolve({ status, bytes: raw.length - at, cut: false });
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        if (lineEnd < 0) break;
        const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
        if (size === 0) {
          cut = false;
          break;
        }
        const available = Math.min(size, raw.length - (lineEnd + 2));
        bytes += available;
        if (available < size) break;
        at = lineEnd + 2 + size + 2;
      }
      resolve({ status, bytes, cut });
    });
    socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`);
  });
}

describe('same-protocol answers larger than the head pass through as they arrive', () => {
  const upstream = new LargeAnswerUpstream();
  let pb: TestPatchbay;

  beforeAll(async () => {
    const url = await upstream.start();
    pb = await startPatchbay({
      config: { providers: { openai: { baseUrl: url }, anthropic: { baseUrl: url }, together: { baseUrl: url }, groq: { baseUrl: url }, local: { baseUrl: url } } },
      env: { OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant', TOGETHER_API_KEY: 'tg', GROQ_API_KEY: 'gq' },
    });
  });
  afterAll(async () => {
    await pb?.stop();
    await upstream.stop();
  });

  const cases = [
    { name: 'OpenAI chat -> OpenAI', path: '/v1/chat/completions', body: { model: 'openai/gpt-4o', max_completion_tokens: 1_000_000, messages: [{ role: 'user', content: 'hi' }] }, provider: 'openai', completion: 345678, adjusted: /max_completion_tokens=16384/ },
    { name: 'OpenAI chat -> a user-defined OpenAI-compatible endpoint', path: '/v1/chat/completions', body: { model: 'local/big', messages: [{ role: 'user', content: 'hi' }] }, provider: 'local', completion: 345678 },
    { name: 'Anthropic Messages -> Anthropic', path: '/v1/messages', body: { model: 'anthropic/claude-sonnet-4-5-20250929', max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] }, provider: 'anthropic', completion: 345678 },
    { name: 'Responses -> OpenAI', path: '/v1/responses', body: { model: 'openai/gpt-4o', input: 'hi' }, provider: 'openai', completion: 345678 },
  ];

  for (const c of cases) {
    it(`${c.name}: the client gets the first megabytes while the upstream is still writing, every byte unchanged, and a usage row with the tokens and price`, async () => {
      upstream.plan = { size: 8 * MB, holdAt: 2 * MB };
      // The upstream stops after 2 MB until the client has received 1 MB: a Patchbay that holds the
      // answer would send nothing until the upstream's 10 s timer gave up waiting.
      const got = await post(pb.patchbay.url, c.path, pb.key, c.body, (received) => received >= 1 * MB && upstream.release());
      expect(upstream.releasedByTimer).toBe(false);
      expect(got.status).toBe(200);
      expect(got.cut).toBe(false);
      expect(got.headers['x-patchbay-provider']).toBe(c.provider);
      // Patchbay's own headers go out before the body, as on a held answer.
      if (c.adjusted) expect(got.headers['x-patchbay-adjusted']).toMatch(c.adjusted);
      expect(got.headers['content-length']).toBeUndefined();
      expect(got.headers['content-type']).toMatch(/application\/json/);
      expect(got.bytes).toBe(upstream.written);
      expect(got.digest).toBe(upstream.digest);
      const row = usageRows(pb.patchbay).at(-1)!;
      expect(row).toMatchObject({ status: 200, error_type: null, provider: c.provider, stream: 0, prompt_tokens: 12, completion_tokens: c.completion });
      const prices = row as { input_price: number; output_price: number; cost_usd: number };
      // A user-defined endpoint has no price; the built-in ones do.
      if (c.provider !== 'local') expect(prices.output_price).toBeGreaterThan(0);
      expect(prices.cost_usd).toBeCloseTo((12 * prices.input_price + c.completion * prices.output_price) / 1e6, 9);
    }, 60_000);
  }

  // Counted on the raw socket: Node's HTTP client drops what it parsed but had not emitted when a connection closes early.
  it('a passed-through answer whose upstream ends before its JSON does is cut at the client, and its usage row says it failed', async () => {
    upstream.plan = { size: 4 * MB, truncate: true };
    const got = await postRaw(pb.patchbay.url, '/v1/chat/completions', pb.key, { model: 'local/big', messages: [{ role: 'user', content: 'hi' }] });
    expect(got.status).toBe(200);
    expect(got.cut).toBe(true);
    expect(got.bytes).toBe(upstream.written);
    const row = usageRows(pb.patchbay).at(-1)!;
    expect(row).toMatchObject({ status: 502, provider: 'local', stream: 0 });
    expect(row.error_type).toMatch(/^answer_/);
  }, 60_000);

  it('a client that leaves mid-answer closes the upstream call, and the usage row says the client left', async () => {
    upstream.plan = { size: 64 * MB };
    const got = await post(pb.patchbay.url, '/v1/chat/completions', pb.key, { model: 'local/big', messages: [{ role: 'user', content: 'hi' }] }, (received, req) => received >= 2 * MB && req.destroy());
    expect(got.cut).toBe(true);
    await upstream.closed;
    expect(upstream.written).toBeLessThan(64 * MB);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const row = usageRows(pb.patchbay).at(-1)!;
    expect(row).toMatchObject({ status: 499, error_type: 'client_closed', provider: 'local' });
  }, 60_000);

  it('a 200 whose head is not JSON (an HTML page) still falls back before anything is sent', async () => {
    upstream.plan = { size: 2 * MB, htmlFirst: true };
    upstream.requests = 0;
    const got = await post(pb.patchbay.url, '/v1/chat/completions', pb.key, { model: 'local/big', messages: [{ role: 'user', content: 'hi' }] }, undefined, { 'x-patchbay-fallback': 'openai/gpt-4o' });
    expect(got.status).toBe(200);
    expect(got.headers['x-patchbay-provider']).toBe('openai');
    expect(got.digest).toBe(upstream.digest);
    const row = usageRows(pb.patchbay).at(-1)!;
    expect(row).toMatchObject({ status: 200, provider: 'openai', completion_tokens: 345678 });
    expect((row.attempts as { provider: string; status: number }[]).map((a) => [a.provider, a.status])).toEqual([['local', 502], ['openai', 200]]);
  }, 60_000);

  it('a small answer is still held and sent whole: a content-length, as before', async () => {
    upstream.plan = { size: 10 * KB };
    const got = await post(pb.patchbay.url, '/v1/chat/completions', pb.key, cases[0].body);
    expect(got.status).toBe(200);
    expect(got.headers['content-length']).toBe(String(upstream.written));
    expect(got.digest).toBe(upstream.digest);
  });

  it('an answer Patchbay rewrites (Together: finish reason eos -> stop) is still held whole and rewritten', async () => {
    upstream.plan = { size: 4 * MB, finishReason: 'eos' };
    const got = await post(pb.patchbay.url, '/v1/chat/completions', pb.key, { model: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(got.status).toBe(200);
    expect(got.headers['content-length']).toBeDefined();
    expect(got.end).toContain('"finish_reason":"stop"');
    const row = usageRows(pb.patchbay).at(-1)!;
    expect(row).toMatchObject({ status: 200, provider: 'together', completion_tokens: 345678 });
  }, 60_000);

  it('a translated answer (OpenAI chat in, Anthropic upstream) is held and translated, not passed through', async () => {
    upstream.plan = { size: 1 * MB };
    const got = await post(pb.patchbay.url, '/v1/chat/completions', pb.key, { model: 'anthropic/claude-sonnet-4-5-20250929', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(got.status).toBe(200);
    expect(got.headers['content-length']).toBeDefined();
    expect(got.end).toContain('"completion_tokens":345678');
  }, 60_000);
});

/** VmRSS of a process, in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

describe('memory stays bounded whatever the size of a passed-through answer (Patchbay as its own process)', () => {
  const upstream = new LargeAnswerUpstream();
  let upstreamUrl: string;
  const TIMEOUT_MS = 3000;
  /**
   * What Patchbay may grow by while it passes an answer on, whatever its size. Measured on this
   * machine: 30-61 MB for 200 MB, 5-51 MB for the never-ending one (a Patchbay that holds the
   * answer: 171 MB, and 98 MB for only 120 MB of a never-ending one; this test sends 160 MB). Not near zero: the socket's read buffers are freed by V8 only at a
   * collection, which their size triggers every few tens of MB, not one by one.
   */
  const GROWTH_BOUND_MB = 100;

  beforeAll(async () => {
    upstreamUrl = await upstream.start();
  });
  afterAll(() => upstream.stop());

  /** A fresh Patchbay process (as `patchbay serve` runs), warmed up. */
  async function startChild() {
    const home = mkdtempSync(join(tmpdir(), 'patchbay-pass-through-'));
    writeFileSync(join(home, 'config.json'), JSON.stringify({ routing: { firstByteTimeoutMs: TIMEOUT_MS }, providers: { local: { baseUrl: upstreamUrl } } }));
    // With the flags and environment `npm start` and the bin's shebang give the server.
    const child: ChildProcess = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve', '--port', '0'], { env: { PATH: process.env.PATH, PATCHBAY_HOME: home, ...NODE_ENV } });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const url = await new Promise<string>((resolve) =>
      child.stdout!.on('data', (d) => {
        const match = /listening on (\S+)/.exec(String(d));
        if (match) resolve(match[1].replace(/\/v1$/, ''));
      }),
    );
    const key = /^\s+(pb-\S+)$/m.exec(stderr)![1];
    // Warm-up, as after a while in use: small answers, and two 32 MB streams, which every Patchbay
    // passes on as they come. The process's young generation and its buffers then are at their
    // working size, and the RSS before is its steady state: what the large answer adds is on top.
    for (const [size, stream] of [[10 * KB, false], [32 * MB, true], [10 * KB, false], [32 * MB, true]] as const) {
      upstream.plan = { size };
      await post(url, '/v1/chat/completions', key, { model: 'local/big', stream, messages: [{ role: 'user', content: 'warm' }] });
    }
    return {
      url,
      key,
      pid: child.pid!,
      /** The usage row of the last request, once the writer has flushed it (`count` rows in all). */
      async lastRow(count: number): Promise<Record<string, unknown>> {
        for (;;) {
          const db = new Database(join(home, 'patchbay.db'), { readonly: true });
          const rows = db.prepare('SELECT * FROM usage ORDER BY id').all() as Record<string, unknown>[];
          db.close();
          if (rows.length >= count) return rows.at(-1)!;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      },
      async stop() {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
        rmSync(home, { recursive: true, force: true });
      },
    };
  }

  /** Runs `work` while sampling the process's RSS; the growth is the peak over the RSS before. */
  async function measure<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; beforeMb: number; peakMb: number }> {
    const beforeMb = rssMb(pid);
    let peakMb = beforeMb;
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 25);
    try {
      const result = await work();
      peakMb = Math.max(peakMb, rssMb(pid));
      return { result, beforeMb, peakMb };
    } finally {
      clearInterval(sampler);
    }
  }

  it('a 200 MB answer reaches the client whole while Patchbay grows by far less than the answer, and its usage row is written', async () => {
    const patchbay = await startChild();
    try {
      upstream.plan = { size: 200 * MB };
      const { result: got, beforeMb, peakMb } = await measure(patchbay.pid, () => post(patchbay.url, '/v1/chat/completions', patchbay.key, { model: 'local/big', messages: [{ role: 'user', content: 'big' }] }));
      console.log(`200 MB answer: Patchbay RSS ${beforeMb.toFixed(1)} MB before, peak ${peakMb.toFixed(1)} MB, growth ${(peakMb - beforeMb).toFixed(1)} MB; client got ${got.bytes} bytes, status ${got.status}`);
      expect(peakMb - beforeMb).toBeLessThan(GROWTH_BOUND_MB);
      expect(got.status).toBe(200);
      expect(got.cut).toBe(false);
      expect(got.bytes).toBe(upstream.written);
      expect(got.digest).toBe(upstream.digest);
      expect(await patchbay.lastRow(5)).toMatchObject({ status: 200, provider: 'local', prompt_tokens: 12, completion_tokens: 345678 });
    } finally {
      await patchbay.stop();
    }
  }, 180_000);

  it('an answer that never ends is passed through until the upstream timeout, then the connection is cut and the usage row records the failure', async () => {
    const patchbay = await startChild();
    try {
      // 160 MB, then nothing: under the 192 MB limit, so a Patchbay that holds answers holds all of it.
      upstream.plan = { size: 160 * MB, stall: true };
      const { result: got, beforeMb, peakMb } = await measure(patchbay.pid, () => post(patchbay.url, '/v1/chat/completions', patchbay.key, { model: 'local/big', messages: [{ role: 'user', content: 'endless' }] }));
      console.log(`never-ending answer: Patchbay RSS ${beforeMb.toFixed(1)} MB before, peak ${peakMb.toFixed(1)} MB, growth ${(peakMb - beforeMb).toFixed(1)} MB; client got ${got.bytes} bytes, status ${got.status}, cut ${got.cut}`);
      expect(peakMb - beforeMb).toBeLessThan(GROWTH_BOUND_MB);
      expect(got.status).toBe(200);
      expect(got.cut).toBe(true);
      expect(got.bytes).toBe(upstream.written);
      expect(await patchbay.lastRow(5)).toMatchObject({ status: 502, error_type: 'answer_timeout', provider: 'local' });
    } finally {
      await patchbay.stop();
    }
  }, 180_000);
});
