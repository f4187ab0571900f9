import { ServerResponse, IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { headerValue, MAX_HEADER_VALUE_CHARS } from '../../core/http/header-value.ts';

/** Node's own check: setHeader throws ERR_INVALID_CHAR on what a header cannot carry. */
function nodeAccepts(value: string): boolean {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  try {
    res.setHeader('x-test', value);
    return true;
  } catch {
    return false;
  }
}

describe('headerValue: any text becomes a legal, bounded header value', () => {
  it('leaves ordinary route reasons as they are', () => {
    const reason = 'alias llama-3.3-70b; balanced chose groq/llama-3.3-70b-versatile';
    expect(headerValue(reason)).toBe(reason);
  });

  it.each([
    ['non-Latin-1', 'pinned to local/模型', 'pinned to local/%E6%A8%A1%E5%9E%8B'],
    ['CR LF (header splitting)', 'local/m\r\nX-Evil: 1', 'local/m%0D%0AX-Evil: 1'],
    ['NUL', 'a\u0000b', 'a%00b'],
    ['a lone surrogate', 'a\ud800b', 'a%EF%BF%BDb'],
    ['a percent sign, so the encoding is unambiguous', '100%', '100%25'],
  ])('percent-encodes %s so Node accepts it and it decodes back', (_label, text, expected) => {
    const value = headerValue(text);
    expect(value).toBe(expected);
    expect(nodeAccepts(value)).toBe(true);
    expect(decodeURIComponent(value)).toBe(text.replace('\ud800', '\ufffd'));
  });

  it('caps the length without cutting an escape in half', () => {
    const long = headerValue('模'.repeat(10_000));
    expect(long.length).toBeLessThanOrEqual(MAX_HEADER_VALUE_CHARS);
    expect(long.endsWith('...')).toBe(true);
    expect(() => decodeURIComponent(long.slice(0, -3))).not.toThrow();
    expect(headerValue('x'.repeat(5000)).length).toBe(MAX_HEADER_VALUE_CHARS);
    for (let max = 10; max < 20; max++) expect(() => decodeURIComponent(headerValue('é'.repeat(50), max).slice(0, -3))).not.toThrow();
  });

  it('the unsanitised route reason of a non-Latin-1 model id is what Node refuses', () => {
    expect(nodeAccepts('pinned to local/模型')).toBe(false);
  });
});
