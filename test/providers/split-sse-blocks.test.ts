import { describe, expect, it } from 'vitest';
import { parseSseBlock, splitSseBlocks } from '../../core/providers/split-sse-blocks.ts';

// The framings the SSE spec allows at once: a comment, an unknown field, CR, LF and CRLF line endings,
// `data:` with and without its space, a multi-line data event, a field with no colon.
const STREAM = ': hello\r\nretry: 10\r\nx-odd: 1\rdata:{"a":\r\ndata: 1}\r\n\r\nevent: error\ndata: {"b":2}\n\n: keep-alive\n\ndata\n\n';
const BLOCKS = [': hello\r\nretry: 10\r\nx-odd: 1\rdata:{"a":\r\ndata: 1}\r\n\r\n', 'event: error\ndata: {"b":2}\n\n', ': keep-alive\n\n', 'data\n\n'];

/** Splits the text given in pieces, carrying the rest, as a relay does. */
function splitAll(pieces: string[]): { blocks: string[]; rest: string } {
  const blocks: string[] = [];
  let rest = '';
  for (const piece of pieces) {
    const step = splitSseBlocks(rest + piece);
    blocks.push(...step.blocks);
    rest = step.rest;
  }
  return { blocks, rest };
}

describe('splitSseBlocks cuts a stream into its events as written, however the text is split', () => {
  it('whole: the blocks are the text, byte for byte', () => {
    expect(splitAll([STREAM])).toEqual({ blocks: BLOCKS, rest: '' });
    expect(BLOCKS.join('')).toBe(STREAM);
  });

  it('split in two at every position (a CRLF split between pieces is one line ending)', () => {
    for (let at = 1; at < STREAM.length; at++) expect(splitAll([STREAM.slice(0, at), STREAM.slice(at)]), `split at ${at}`).toEqual({ blocks: BLOCKS, rest: '' });
  });

  it('one character at a time', () => {
    expect(splitAll([...STREAM])).toEqual({ blocks: BLOCKS, rest: '' });
  });

  it('an event still arriving stays in rest; a CR at the end waits for a possible LF', () => {
    expect(splitSseBlocks('data: 1\n\ndata: 2\n')).toEqual({ blocks: ['data: 1\n\n'], rest: 'data: 2\n' });
    expect(splitSseBlocks('data: 1\r\r')).toEqual({ blocks: [], rest: 'data: 1\r\r' });
    expect(splitSseBlocks('data: 1\r\r\n')).toEqual({ blocks: ['data: 1\r\r\n'], rest: '' });
    expect(splitSseBlocks('data: 1\r\rdata: 2')).toEqual({ blocks: ['data: 1\r\r'], rest: 'data: 2' });
  });
});

describe('parseSseBlock', () => {
  it('reads the name and the data lines joined; comments and keep-alives carry nothing', () => {
    expect(BLOCKS.map(parseSseBlock)).toEqual([{ event: undefined, data: '{"a":\n1}' }, { event: 'error', data: '{"b":2}' }, null, { event: undefined, data: '' }]);
  });
});
