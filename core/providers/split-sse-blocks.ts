/**
 * Server-sent events as the upstream wrote them, one text block per event, so a relay can pass
 * each on byte for byte and still decide event by event (where the stream commits, where an error
 * stands). A block is its lines up to and including the blank line that ends it; `rest` is the
 * start of an event still arriving. Lines end with CRLF, LF or CR (the SSE rule): a CR closing the
 * text may be half of a CRLF, so a block ending there waits for what follows.
 */
export function splitSseBlocks(text: string): { blocks: string[]; rest: string } {
  const blocks: string[] = [];
  let from = 0;
  BLANK_LINE.lastIndex = 0;
  for (let match = BLANK_LINE.exec(text); match; match = BLANK_LINE.exec(text)) {
    let end = match.index + match[0].length;
    if (text[end - 1] === '\r') {
      if (end === text.length) break;
      if (text[end] === '\n') end++;
    }
    blocks.push(text.slice(from, end));
    from = end;
    BLANK_LINE.lastIndex = end;
  }
  return { blocks, rest: from === 0 ? text : text.slice(from) };
}

/** A line's end followed by an empty line's end; a lone CR counts only when no LF follows it (else CRLF is one end). */
const BLANK_LINE = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r)/g;

/** The `event:` name and joined `data:` of one block; null when it carries no data (comments, keep-alives). */
export function parseSseBlock(block: string): { event: string | undefined; data: string } | null {
  let event: string | undefined;
  let data: string | null = null;
  for (const line of block.split(LINE_END)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
    if (field === 'event') event = value;
    else if (field === 'data') data = data === null ? value : `${data}\n${value}`;
  }
  return data === null ? null : { event, data };
}

const LINE_END = /\r\n|\n|\r/;
