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

  it('characters of 2, 3 and 4 bytes and invalid bytes decode as TextDecoder decodes them whole, split at every position', () => {
    const text = new Uint8Array([
      ...new TextEncoder().encode('data: {"t":"é € 😀 '),
      // A lone lead byte, a cut-short 4-byte character, 0xFF, an encoded surrogate: each U+FFFD.
      0xe2, 0x41, 0xf0, 0x9f, 0x98, 0xff, 0xed, 0xa0, 0x80,
      ...new TextEncoder().encode(' ü"}\n\n'),
    ]);
    const expected = [{ event: undefined, data: new TextDecoder().decode(text.subarray(6, -2)) }];
    expect(expected[0].data).toContain('é € 😀 \uFFFDA\uFFFD');
    for (let at = 1; at < text.length; at++) expect(decodeAll([text.subarray(0, at), text.subarray(at)]), `split at ${at}`).toEqual(expected);
    expect(decodeAll(Array.from(text, (_, i) => text.subarray(i, i + 1)))).toEqual(expected);
  });
});
