import { describe, expect, it } from 'vitest';
import { JsonMemberReader } from '../../core/providers/read-json-members.ts';

/** Feeds `text` in the given pieces (byte offsets) and returns the reader. */
function read(text: string, wanted: string[], cuts: number[]): JsonMemberReader {
  const bytes = Buffer.from(text);
  const reader = new JsonMemberReader(wanted);
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    reader.feed(bytes.subarray(from, cut));
    from = cut;
  }
  return reader;
}

const ANSWERS = [
  '{"id":"a","choices":[{"message":{"content":"say \\"usage\\": {\\"x\\":1}, \\\\\\" é ✓ }"}}],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}',
  '{ "usage" : { "input_tokens" : 1, "output_tokens" : 2 } , "content" : [ {"text":"\\\\"} ], "error" : null, "type":"message" }',
  '{"status":"failed","error":{"code":"server_error","message":"a \\"quoted\\" text"},"output":[],"usage":null}',
  '{"nested":{"usage":{"no":1}},"text":"\\\\\\\\","usage":{"total_tokens":7}}',
];

describe('JsonMemberReader: top-level members of a JSON object read as its bytes pass', () => {
  it('reads the same members as JSON.parse wherever the text is cut, escapes and non-ASCII included', () => {
    for (const text of ANSWERS) {
      const whole = JSON.parse(text) as Record<string, unknown>;
      const wanted = ['usage', 'error', 'status'];
      const expected = Object.fromEntries(wanted.filter((k) => k in whole).map((k) => [k, whole[k]]));
      const length = Buffer.byteLength(text);
      for (let cut = 0; cut <= length; cut++) {
        const reader = read(text, wanted, [cut]);
        expect(reader.values, `cut at ${cut} of ${text}`).toEqual(expected);
        expect(reader.complete).toBe(true);
      }
      const byByte = read(text, wanted, Array.from({ length }, (_, i) => i));
      expect(byByte.values).toEqual(expected);
      expect(byByte.complete).toBe(true);
    }
  });

  it('says an answer that is not an object is malformed, and one cut short is not complete', () => {
    expect(read('<html>', ['usage'], []).malformed).toBe(true);
    expect(read('[1,2]', ['usage'], []).malformed).toBe(true);
    const cut = read('{"usage":{"total_tokens":1},"text":"abc', ['usage'], []);
    expect(cut.complete).toBe(false);
    expect(cut.values).toEqual({ usage: { total_tokens: 1 } });
  });
});
