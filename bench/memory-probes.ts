// Patchbay's peak memory against an upstream that never ends its answer and a streaming client that
// never reads (issue 13). Not part of `npm test` or `npm run bench`; each probe runs a fresh Patchbay
// process for at most PROBE_SECONDS (8 by default) against an upstream in this process.
//
//   node bench/memory-probes.ts
//   BENCH_PATCHBAY_BIN=/path/to/other/checkout/bin/patchbay.js node bench/memory-probes.ts   # another build
//
// Reports per probe: the Patchbay process's RSS at start and its peak (VmHWM), what the upstream
// managed to write, and how the request ended.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { memoryMb, sleep, startPatchbay } from './procs.ts';

const PROBE_MS = Number(process.env.PROBE_SECONDS ?? 8) * 1000;
const MB = 1024 * 1024;

/** Writes an answer that never ends, as fast as the socket takes it (and a safety stop at 4 GB). */
function startEndlessUpstream(): Promise<{ server: Server; port: number; written: () => number; closed: () => boolean }> {
  let written = 0;
  let closed = false;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      written = 0;
      closed = false;
      res.on('close', () => (closed = true));
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      const event = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'b'.repeat(900) } }] })}\n\n`;
      const piece = stream ? event.repeat(64) : 'a'.repeat(64 * 1024);
      res.write(stream ? '' : '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"');
      const pump = () => {
        while (!res.destroyed && written < 4096 * MB) {
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
      };
      pump();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, written: () => written, closed: () => closed })),
  );
}

async function probe(name: string, run: (url: string, key: string) => Promise<string>): Promise<void> {
  const upstream = await startEndlessUpstream();
  const patchbay = await startPatchbay(upstream.port);
  try {
    await sleep(300);
    const atStart = memoryMb(patchbay.pid).rss;
    const outcome = await run(patchbay.url, patchbay.key);
    const { rss, peak } = memoryMb(patchbay.pid);
    console.log(
      `${name}: RSS at start ${atStart.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, now ${rss.toFixed(0)} MB | upstream wrote ${(upstream.written() / MB).toFixed(1)} MB, its connection ${upstream.closed() ? 'closed' : 'open'} | ${outcome}`,
    );
  } finally {
    await patchbay.stop();
    upstream.server.closeAllConnections();
    upstream.server.close();
  }
}

const body = (stream: boolean) => JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream });

await probe('never-ending non-streaming answer', async (url, key) => {
  const started = Date.now();
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body(false),
      signal: AbortSignal.timeout(PROBE_MS),
    });
    const text = await response.text();
    return `answered ${response.status} after ${Date.now() - started} ms: ${text.slice(0, 160)}`;
  } catch (error) {
    return `no answer within ${PROBE_MS} ms (${(error as Error).name})`;
  }
});

await probe('streaming client that never reads', async (url, key) => {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.pause();
  let closedAt = 0;
  socket.on('close', () => (closedAt = Date.now()));
  socket.on('error', () => {});
  const payload = body(true);
  const started = Date.now();
  socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
  await sleep(PROBE_MS);
  socket.destroy();
  return closedAt ? `client dropped after ${closedAt - started} ms` : `client still connected after ${PROBE_MS} ms`;
});
