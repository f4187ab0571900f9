import { describe, expect, it } from 'vitest';
import { sseDecoder } from '../../core/providers/read-sse-events.ts';
import { oneLine } from '../../core/providers/openai-compatible/read-upstream-data.ts';

// Two events in every framing the SSE spec allows at once: a comment, an unknown field, CR, LF and
// CRLF line endings, `data:` with and without its space, a multi-line data event, a field with no colon.
const STREAM = ': hello\r\nretry: 10\r\nx-odd: 1\rdata:{"a":\r\ndata: 1}\r\n\r\nevent: error\ndata: {"b":2}\n\ndata\n\n';
const EXPECTED = [
  { event: undefined, data: '{"a":\n1}' },
  { event: 'error', data: '{"b":2}' },
  { event: undefined, data: '' },
];

function decodeAll(pieces: Uint8Array[]): { event: string | undefined; data: string }[] {
  const decode = sseDecoder('test');
  const out: { event: string | undefined; data: string }[] = [];
  for (const piece of pieces) for (const event of decode(piece)) out.push({ event: event.event, data: event.data });
  return out;
}

describe('sseDecoder parses server-sent events per the WHATWG spec, however the bytes are split', () => {
  const bytes = new TextEncoder().encode(STREAM);

  it('whole', () => {
    expect(decodeAll([bytes])).toEqual(EXPECTED);
  });

  it('split in two at every position (a CRLF split between chunks is one line ending)', () => {
    for (let at = 1; at < bytes.length; at++) expect(decodeAll([bytes.subarray(0, at), bytes.subarray(at)]), `split at ${at}`).toEqual(EXPECTED);
  });

  it('one byte at a time', () => {
    expect(decodeAll(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)))).toEqual(EXPECTED);
  });

  it('a multi-line data payload is forwarded on one line, as the same JSON', () => {
    const data = decodeAll([bytes])[0].data;
    expect(oneLine(data)).not.toContain('\n');
    expect(JSON.parse(oneLine(data))).toEqual({ a: 1 });
  });
});
