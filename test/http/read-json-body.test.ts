import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../core/errors/patchbay-error.ts';
import { readJsonBody } from '../../core/http/read-json-body.ts';

/**
 * readJsonBody takes a body Node's parser already holds whole in one read, and gathers one still
 * arriving from the stream's events. A client cannot tell the two apart: every way a body can arrive
 * (with its head, after it, in pieces, chunked) gives the same object or the same error. Real
 * node:http server, raw sockets on loopback so the packets are split where the test says.
 */
describe('readJsonBody, however the body arrives', () => {
  const LIMIT = 1024;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      readJsonBody(req, LIMIT).then(
        (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ body })),
        (error: unknown) => {
          const e = error as InvalidRequestError;
          res.writeHead(e.status ?? 500, { 'content-type': 'application/json' }).end(JSON.stringify({ code: e.code, message: e.message }));
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends the pieces over one connection, `gapMs` apart, and returns the status and JSON answer. */
  const send = (pieces: (string | Buffer)[], gapMs = 0) =>
    new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      socket.setNoDelay(true);
      socket.on('data', (d: Buffer) => received.push(d));
      socket.on('error', reject);
      socket.on('end', () => {
        // A client that sent `Expect: 100-continue` gets Node's interim answer first.
        const text = Buffer.concat(received).toString('utf8').replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
        const [head, ...rest] = text.split('\r\n\r\n');
        const body = rest.join('\r\n\r\n');
        // The answers are small, so chunked framing is one size line, the JSON, and the end marker.
        const json = head.includes('chunked') ? body.split('\r\n')[1] : body;
        resolve({ status: Number(head.split(' ')[1]), json: JSON.parse(json) });
      });
      socket.on('connect', async () => {
        for (const piece of pieces) {
          socket.write(piece);
          if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
        }
      });
    });
  const head = (length: number | 'chunked') =>
    `POST /x HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\n${length === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${length}`}\r\n\r\n`;
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'grüß dich' }] });
  const bytes = Buffer.from(body);

  it('a body in the same packet as its head', async () => {
    const answer = await send([Buffer.concat([Buffer.from(head(bytes.length)), bytes])]);
    expect(answer).toEqual({ status: 200, json: { body: JSON.parse(body) } });
  });

  it('a body sent after its head, in pieces, split inside a character', async () => {
    const cut = bytes.indexOf(Buffer.from('ü')) + 1;
    const answer = await send([head(bytes.length), bytes.subarray(0, 10), bytes.subarray(10, cut), bytes.subarray(cut)], 30);
    expect(answer).toEqual({ status: 200, json: { body: JSON.parse(body) } });
  });

  it('a body sent once the server said 100 Continue (curl does so for large bodies)', async () => {
    const expecting = head(bytes.length).replace('\r\n\r\n', '\r\nexpect: 100-continue\r\n\r\n');
    const answer = await send([expecting, bytes], 30);
    expect(answer).toEqual({ status: 200, json: { body: JSON.parse(body) } });
  });

  it('a chunked body, whole and in pieces', async () => {
    const chunked = `${bytes.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    expect(await send([head('chunked') + chunked])).toEqual({ status: 200, json: { body: JSON.parse(body) } });
    const half = Math.floor(bytes.length / 2);
    const pieces = [head('chunked'), `${half.toString(16)}\r\n`, bytes.subarray(0, half), `\r\n${(bytes.length - half).toString(16)}\r\n`, bytes.subarray(half), '\r\n0\r\n\r\n'];
    expect(await send(pieces, 20)).toEqual({ status: 200, json: { body: JSON.parse(body) } });
  });

  it('a chunked body over the limit is a 413 whether it came whole or in pieces', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(LIMIT) });
    const chunked = `${Buffer.byteLength(big).toString(16)}\r\n${big}\r\n0\r\n\r\n`;
    for (const answer of [await send([head('chunked') + chunked]), await send([head('chunked'), chunked], 20)]) {
      expect(answer.status).toBe(413);
      expect(answer.json.code).toBe('request_too_large');
    }
  });

  it('bytes that are not UTF-8 are named by offset, whole or in pieces', async () => {
    const bad = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    for (const answer of [await send([Buffer.concat([Buffer.from(head(bad.length)), bad])]), await send([head(bad.length), bad], 20)]) {
      expect(answer.status).toBe(400);
      expect(answer.json.code).toBe('invalid_utf8');
      expect(answer.json.message).toContain('byte offset 6');
    }
  });

  it('an empty body and cut JSON say what to send', async () => {
    const empty = await send([head(0)]);
    expect(empty.status).toBe(400);
    expect(empty.json.message).toContain('no body');
    const cut = await send([`${head(8)}{"model"`]);
    expect(cut.status).toBe(400);
    expect(cut.json.code).toBe('invalid_json');
  });
});
