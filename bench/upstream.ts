// A lean loopback upstream that speaks the OpenAI wire format with no added latency: chat
// completions (JSON and SSE), embeddings. Bodies are precomputed; the request path does one
// JSON.parse (to check the request and read `stream`) and one write. Any path prefix is served,
// so one process stands in for several providers: `/direct/v1/...`, `/groq/v1/...`, `/together/v1/...`.
//
// Run as a child of run-bench.ts (fork, IPC): it sends { port } once listening.
// Control (never counted): POST /__bench/config {chatDelayMs, streamChunks, streamDelayMs}; GET /__bench/stats.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { CHAT_CONTENT, EMBEDDING_DIMENSIONS, embeddingValue, streamPiece } from './wire.ts';

let chatDelayMs = 0;
let streamChunks = 20;
let streamDelayMs = 5;

/** Answered requests by `${prefix} ${operation}` (operation: chat, stream, embeddings). */
const counts = new Map<string, number>();
/** Requests refused because their body was not what a gateway should have sent. */
let bad = 0;
const badSamples: string[] = [];

const CREATED = Math.floor(Date.now() / 1000);

const CHAT_BODY = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: 'bench-model',
    choices: [{ index: 0, message: { role: 'assistant', content: CHAT_CONTENT }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 24, completion_tokens: 9, total_tokens: 33 },
  }),
);
const CHAT_HEADERS = { 'content-type': 'application/json', 'content-length': String(CHAT_BODY.length) };

const EMBEDDING_BODY = Buffer.from(
  JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => embeddingValue(i)) }],
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 10, total_tokens: 10 },
  }),
);
const EMBEDDING_HEADERS = { 'content-type': 'application/json', 'content-length': String(EMBEDDING_BODY.length) };

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
let streamEvents: string[] = [];
let usageEvent = '';

function buildStream(): void {
  streamEvents = [];
  for (let i = 0; i < streamChunks; i++) {
    const last = i === streamChunks - 1;
    const delta = i === 0 ? { role: 'assistant', content: streamPiece(i) } : { content: streamPiece(i) };
    const chunk = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: 'bench-model', choices: [{ index: 0, delta, logprobs: null, finish_reason: last ? 'stop' : null }] };
    streamEvents.push(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  const usage = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: 'bench-model', choices: [], usage: { prompt_tokens: 24, completion_tokens: streamChunks, total_tokens: 24 + streamChunks } };
  usageEvent = `data: ${JSON.stringify(usage)}\n\n`;
}
buildStream();

function count(key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function refuse(res: ServerResponse, why: string): void {
  bad++;
  if (badSamples.length < 10) badSamples.push(why);
  const body = JSON.stringify({ error: { message: `bench upstream: ${why}`, type: 'invalid_request_error' } });
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendStream(res: ServerResponse, includeUsage: boolean): void {
  res.writeHead(200, SSE_HEADERS);
  const events = streamEvents;
  const finish = () => {
    res.end(includeUsage ? `${usageEvent}data: [DONE]\n\n` : 'data: [DONE]\n\n');
  };
  if (streamDelayMs <= 0) {
    res.write(events.join(''));
    finish();
    return;
  }
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    res.write(events[i++]);
    if (i < events.length) setTimeout(next, streamDelayMs);
    else finish();
  };
  next();
}

function handle(req: IncomingMessage, res: ServerResponse, text: string): void {
  const url = req.url ?? '';
  if (url.startsWith('/__bench/')) return control(url, res, text);
  const at = url.indexOf('/v1/');
  if (req.method !== 'POST' || at < 0) return refuse(res, `unexpected ${req.method} ${url}`);
  const prefix = url.slice(1, at) || 'root';
  const operation = url.slice(at + 4);
  if (!(req.headers.authorization ?? '').startsWith('Bearer ')) return refuse(res, `no bearer credential on ${url}`);
  let body: { model?: unknown; messages?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } | null; input?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return refuse(res, `body of ${url} is not JSON`);
  }
  if (typeof body.model !== 'string' || body.model.length === 0) return refuse(res, `no model in ${url}`);
  if (operation === 'chat/completions') {
    if (!Array.isArray(body.messages) || body.messages.length === 0) return refuse(res, 'chat without messages');
    if (body.stream === true) {
      count(`${prefix} stream`);
      sendStream(res, body.stream_options?.include_usage === true);
      return;
    }
    count(`${prefix} chat`);
    if (chatDelayMs > 0) {
      setTimeout(() => {
        res.writeHead(200, CHAT_HEADERS);
        res.end(CHAT_BODY);
      }, chatDelayMs);
      return;
    }
    res.writeHead(200, CHAT_HEADERS);
    res.end(CHAT_BODY);
    return;
  }
  if (operation === 'embeddings') {
    if (body.input === undefined) return refuse(res, 'embeddings without input');
    count(`${prefix} embeddings`);
    res.writeHead(200, EMBEDDING_HEADERS);
    res.end(EMBEDDING_BODY);
    return;
  }
  refuse(res, `unknown operation ${operation}`);
}

function control(url: string, res: ServerResponse, text: string): void {
  if (url === '/__bench/config') {
    const settings = JSON.parse(text || '{}') as { chatDelayMs?: number; streamChunks?: number; streamDelayMs?: number };
    if (settings.chatDelayMs !== undefined) chatDelayMs = settings.chatDelayMs;
    if (settings.streamDelayMs !== undefined) streamDelayMs = settings.streamDelayMs;
    if (settings.streamChunks !== undefined) streamChunks = settings.streamChunks;
    buildStream();
  }
  const body = JSON.stringify({ counts: Object.fromEntries(counts), bad, badSamples, chatDelayMs, streamChunks, streamDelayMs });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer({ keepAliveTimeout: 120_000, noDelay: true }, (req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => handle(req, res, parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8')));
});
server.headersTimeout = 60_000;
server.requestTimeout = 0;

server.listen(Number(process.env.BENCH_UPSTREAM_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (process.send) process.send({ port });
  else process.stdout.write(`bench upstream on http://127.0.0.1:${port}\n`);
});
process.on('disconnect', () => process.exit(0));
