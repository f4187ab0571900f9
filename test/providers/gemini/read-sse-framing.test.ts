import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSseEvents } from '../../../core/providers/read-sse-events.ts';
import type { UpstreamResponse } from '../../../core/providers/upstream-response.ts';

/** A body delivered in the given pieces, as undici would hand them over. */
function bodyOf(pieces: string[]): UpstreamResponse {
  return { status: 200, headers: {}, body: Readable.from(pieces.map((p) => Buffer.from(p))) as unknown as UpstreamResponse['body'] };
}

async function dataOf(pieces: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const event of readSseEvents('google', bodyOf(pieces))) out.push(event.data);
  return out;
}

describe('readSseEvents with Gemini framing (reference 3.4: CRLF, no terminator)', () => {
  it('reads events framed with \\r\\n\\r\\n, even when a separator is split across reads', async () => {
    expect(await dataOf(['data: {"a":1}\r\n\r\ndata: {"b"', ':2}\r', '\n\r\n'])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reads \\n\\n and \\r\\r framing as well', async () => {
    expect(await dataOf(['data: {"a":1}\n\ndata: {"b":2}\r\r'])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('drops a last event cut off before its blank line', async () => {
    expect(await dataOf(['data: {"a":1}\r\n\r\ndata: {"b":'])).toEqual(['{"a":1}']);
  });
});
