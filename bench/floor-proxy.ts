// The floor: a bare pass-through proxy on node:http + one undici Agent, the least any Node gateway
// built on those two can cost per request. No auth, validation, routing, logging or parsing: read
// the client body, send it on, send the answer back. run-bench.ts measures it as a reference
// column (target `floor`), so the report shows where Node's own HTTP stack puts the floor for CPU
// per request, added latency, throughput and RSS.
//
// `POST /v1/chat/completions` and `POST /v1/embeddings` go to `<upstream>/floor/v1/<same path>`
// (the bench upstream counts them as `floor chat`, `floor stream`, `floor embeddings`).
// Upstream origin: argv[2] or FLOOR_UPSTREAM. Run as a child of run-bench.ts with IPC: it sends
// { port } once listening on 127.0.0.1 (port 0).
import { createServer } from 'node:http';
import { Agent } from 'undici';

const origin = process.argv[2] || process.env.FLOOR_UPSTREAM;
if (!origin) throw new Error('usage: node bench/floor-proxy.ts <upstream origin>');

// One connection pool for every request, as a gateway would keep.
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || (req.url !== '/v1/chat/completions' && req.url !== '/v1/embeddings')) {
    res.writeHead(404).end();
    return;
  }
  try {
    // The client's body, whole (as any gateway that looks at the model must).
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const upstream = await agent.request({
      origin,
      path: `/floor${req.url}`,
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json', authorization: req.headers.authorization ?? '' },
      body: Buffer.concat(parts),
    });
    const type = String(upstream.headers['content-type'] ?? 'application/json');
    if (type.startsWith('text/event-stream')) {
      // A stream: every upstream chunk goes out as it arrives, no buffering.
      res.writeHead(upstream.statusCode, { 'content-type': type, 'cache-control': 'no-cache' });
      for await (const chunk of upstream.body) res.write(chunk);
      res.end();
      return;
    }
    // A JSON answer: read it whole, send it with its length.
    const body = Buffer.from(await upstream.body.arrayBuffer());
    res.writeHead(upstream.statusCode, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  } catch (error) {
    if (res.headersSent) res.destroy();
    else res.writeHead(502, { 'content-type': 'text/plain' }).end(`floor proxy: ${(error as Error).message}`);
  }
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (process.send) process.send({ port });
  else process.stdout.write(`floor proxy on http://127.0.0.1:${port} -> ${origin}/floor\n`);
});
process.on('disconnect', () => process.exit(0));
