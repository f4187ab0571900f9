import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ModelScript } from './emulator-common.ts';

/**
 * A fault to inject into the next matching request(s). Shared by every provider emulator, so one
 * test vocabulary covers them all.
 */
export interface Fault {
  /** Only requests whose path includes this string (default: every request). */
  path?: string;
  /**
   * Only requests carrying this API key (in Authorization, x-api-key, x-goog-api-key or `?key=`):
   * providers rate-limit and bill per key (per organisation or project), so one key can be
   * limited while another is not.
   */
  apiKey?: string;
  /** Set on the fault a request took: the API key that request carried (what `quoteKey` quotes). */
  carriedKey?: string;
  /** How many requests it applies to (default 1; Infinity for all). */
  times?: number;
  /** Wait before answering (ms). */
  delayMs?: number;
  /** Answer with this status and the provider's error body for it. */
  status?: number;
  /** Override the error message. */
  message?: string;
  /** Extra response headers (e.g. retry-after). */
  headers?: Record<string, string>;
  /**
   * The provider's own wait hint for a 429/503: a `retry-after` header (seconds) for OpenAI, Groq,
   * Together and Anthropic; `google.rpc.RetryInfo.retryDelay` in the body for Gemini (which sends no
   * header). Each emulator picks a realistic default when unset.
   */
  retryAfterSeconds?: number;
  /** Close the connection without answering. */
  drop?: 'before-headers';
  /** For streams: after this many data events, cut the connection, or send an error event. */
  midStream?: { afterEvents: number; kind: 'drop' | 'error-event' };
  /** For streams: after this many data events, wait until the promise settles before sending the rest. */
  hold?: { afterEvents: number; until: Promise<unknown> };
  /**
   * A careless upstream: the error (the body for `status`, or the mid-stream error event) quotes
   * the API key the request carried, in every field and in several encodings (as sent, after
   * "Bearer ", URL-encoded, JSON-escaped).
   */
  quoteKey?: boolean;
  /** Send the error body for `status` with HTTP 200 (an upstream that reports failures inside a 200 answer). */
  errorWith200?: boolean;
  /**
   * For streams: the same events framed differently, all valid SSE (WHATWG): `data` split over
   * several `data:` lines, another line ending, comments and unknown fields between events,
   * `data:` without the space, and the bytes written `writeBytes` at a time (each write its own
   * TCP segment), so events and line endings are split at every position.
   */
  sseFraming?: { lineEnding?: '\n' | '\r\n' | '\r'; multiLine?: boolean; comments?: boolean; noSpace?: boolean; writeBytes?: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface EmulatorContext {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  body: unknown;
  fault: Fault | undefined;
}

/** Minimal HTTP plumbing for emulators: body parsing, request log, faults, delays, connection drops. */
export abstract class EmulatorServer {
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Added before every answer, to emulate a slower provider. */
  latencyMs = 0;
  /** Gap between streamed events. */
  chunkDelayMs = 0;
  /** TCP connections accepted so far (a client that keeps its connections alive opens few). */
  connections = 0;
  /** What the emulated model answers, when a test scripts it (else the emulator's default rule). */
  script: ModelScript | null = null;

  /** Queues a fault for the next matching request(s). */
  inject(fault: Fault): void {
    this.faults.push({ times: 1, ...fault });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Count of requests whose path includes `path`. */
  count(path = ''): number {
    return this.requests.filter((r) => r.path.includes(path)).length;
  }

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => void this.dispatch(req, res));
    this.server.on('connection', (socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  protected abstract handle(ctx: EmulatorContext): Promise<void> | void;

  private takeFault(path: string, key: string | undefined): Fault | undefined {
    const index = this.faults.findIndex((f) => (!f.path || path.includes(f.path)) && (f.apiKey === undefined || f.apiKey === key));
    if (index === -1) return undefined;
    const fault = this.faults[index];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return { ...fault, carriedKey: key };
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const path = req.url ?? '/';
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    const fault = this.takeFault(path, credentialOf(req, path));
    const delay = (fault?.delayMs ?? 0) + this.latencyMs;
    if (delay > 0) await sleep(delay);
    if (fault?.drop === 'before-headers') {
      req.socket.destroy();
      return;
    }
    try {
      await this.handle({ req, res, path, body, fault });
    } catch (error) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `emulator bug: ${(error as Error).message}`, type: 'server_error', param: null, code: null } }));
      }
    }
  }
}

/** The API key a request carried, wherever the provider's wire puts it. */
export function credentialOf(req: IncomingMessage, path: string): string | undefined {
  const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, '');
  const header = req.headers['x-api-key'] ?? req.headers['x-goog-api-key'];
  return bearer || (typeof header === 'string' ? header : undefined) || new URL(path, 'http://emulator').searchParams.get('key') || undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Writes SSE events honouring the fault's mid-stream failure and the emulator's chunk delay. */
export async function writeSse(
  res: ServerResponse,
  events: string[],
  options: { chunkDelayMs: number; fault?: Fault; errorEvent: () => string; headers?: Record<string, string> },
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...options.headers });
  res.flushHeaders();
  const framing = options.fault?.sseFraming;
  if (framing) {
    const bytes = Buffer.from(events.map((event) => reframe(event, framing)).join(''));
    const size = framing.writeBytes ?? bytes.length;
    for (let at = 0; at < bytes.length; at += size) {
      res.write(bytes.subarray(at, at + size));
      // Let each piece leave as its own segment rather than coalesce with the next write.
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
    return;
  }
  for (const [index, event] of events.entries()) {
    const cut = options.fault?.midStream;
    if (cut && index === cut.afterEvents) {
      if (cut.kind === 'drop') {
        // Let what was written reach the client first, as a real connection cut mid-answer would.
        await sleep(20);
        res.socket?.destroy();
        return;
      }
      res.end(options.errorEvent());
      return;
    }
    if (options.fault?.hold && index === options.fault.hold.afterEvents) await options.fault.hold.until;
    if (index > 0 && options.chunkDelayMs > 0) await sleep(options.chunkDelayMs);
    res.write(event);
  }
  res.end();
}

/** One `data: <payload>\n\n` event in another valid SSE framing (see Fault.sseFraming). */
function reframe(event: string, framing: NonNullable<Fault['sseFraming']>): string {
  const eol = framing.lineEnding ?? '\n';
  const named = /^event: (.*)\n/.exec(event);
  const payload = event.replace(/^event: .*\n/, '').replace(/^data: /, '').replace(/\n\n$/, '');
  // Pretty-printed JSON is the same JSON: one `data:` line per line of it, joined again with "\n" by the reader.
  const lines = framing.multiLine && payload.startsWith('{') ? JSON.stringify(JSON.parse(payload), null, 1).split('\n') : [payload];
  const field = framing.noSpace ? 'data:' : 'data: ';
  const comments = framing.comments ? `: keep-alive${eol}id: 7${eol}retry: 1000${eol}x-unknown: ignored${eol}:${eol}` : '';
  const name = named ? `event: ${named[1]}${eol}` : '';
  return `${comments}${name}${lines.map((line) => `${field}${line}`).join(eol)}${eol}${eol}`;
}
