// The floor: a bare pass-through proxy on node:http + one undici Agent, written for the least
// cost per request those two allow (plain events in, undici's dispatch API out). No auth,
// validation, routing, logging or parsing: read the client body, send it on, send the answer back.
// run-bench.ts measures it as a reference column (target `floor`), so the report shows where Node's
// own HTTP stack puts the floor for CPU per request, added latency, throughput and RSS. Plain
// JavaScript, so Node loads no TypeScript stripper into it (as `npm start` runs Patchbay compiled).
//
// `POST /v1/chat/completions` and `POST /v1/embeddings` go to `<upstream>/floor/v1/<same path>`
// (the bench upstream counts them as `floor chat`, `floor stream`, `floor embeddings`).
// Upstream origin: argv[2] or FLOOR_UPSTREAM. Run as a child of run-bench.ts with IPC: it sends
// { port } once listening on 127.0.0.1 (port 0).
import { createServer } from 'node:http';
import { Agent } from 'undici';

const origin = process.argv[2] || process.env.FLOOR_UPSTREAM;
if (!origin) throw new Error('usage: node bench/floor-proxy.mjs <upstream origin>');

// One connection pool for every request, as a gateway would keep.
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });

const server = createServer((req, res) => {
  if (req.method !== 'POST' || (req.url !== '/v1/chat/completions' && req.url !== '/v1/embeddings')) {
    res.writeHead(404).end();
    return;
  }
  // The client's body, whole (as any gateway that looks at the model must), read with plain events.
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => forward(req, res, parts.length === 1 ? parts[0] : Buffer.concat(parts)));
});

/**
 * Sends the body on through undici's lowest-level API (dispatch): no response stream object, no
 * promise per request. A JSON answer is gathered and sent with its length in one write; a stream's
 * chunks are written to the client as each arrives.
 */
function forward(req, res, body) {
  let streaming = false;
  const parts = [];
  agent.dispatch(
    {
      origin,
      path: `/floor${req.url}`,
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json', authorization: req.headers.authorization ?? '' },
      body,
    },
    {
      onRequestStart() {},
      onResponseStart(_controller, statusCode, headers) {
        const type = String(headers['content-type'] ?? 'application/json');
        streaming = type.startsWith('text/event-stream');
        res.statusCode = statusCode;
        if (streaming) res.writeHead(statusCode, { 'content-type': type, 'cache-control': 'no-cache' });
        else res.setHeader('content-type', type);
      },
      onResponseData(_controller, chunk) {
        if (streaming) res.write(chunk);
        else parts.push(chunk);
      },
      onResponseEnd() {
        if (streaming) {
          res.end();
          return;
        }
        const answer = parts.length === 1 ? parts[0] : Buffer.concat(parts);
        res.setHeader('content-length', answer.length);
        res.end(answer);
      },
      onResponseError(_controller, error) {
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { 'content-type': 'text/plain' }).end(`floor proxy: ${error.message}`);
      },
    },
  );
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (process.send) process.send({ port });
  else process.stdout.write(`floor proxy on http://127.0.0.1:${port} -> ${origin}/floor\n`);
});
process.on('disconnect', () => process.exit(0));
