import { describe, expect, it } from 'vitest';
import { SecretScanner } from '../../core/providers/scan-secrets.ts';
import { redactSecrets, rememberSecret } from '../../core/errors/redact-secrets.ts';

const KEY = 'sk-proj-Zq8LEAKCANARYf00dT3stK3y';
const OTHER = 'gsk_9a8b7c6d5e4f3g2h1i0jXYZ';

/** Every way of cutting `bytes` into two or three chunks at the given positions, run through one scanner. */
function scanCut(bytes: Buffer, cuts: number[]): Buffer {
  const scanner = new SecretScanner();
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...scanner.push(bytes.subarray(at, cut)));
    at = cut;
  }
  out.push(...scanner.end());
  return Buffer.concat(out);
}

describe('SecretScanner: the redaction, applied to an answer in chunks', () => {
  it('passes everything through unchanged, byte for byte, while no secret is known', () => {
    const bytes = Buffer.from('héllo wörld: data {"x": 1}\n\n', 'utf8');
    const scanner = new SecretScanner();
    expect(scanner.push(bytes)).toEqual([bytes]);
    expect(scanner.push(bytes)[0]).toBe(bytes);
    expect(scanner.end()).toEqual([]);
  });

  it('whatever the chunk boundaries, the output is the whole text redacted (every form, case, base64, whitespace between pieces of 11 or more), other bytes unchanged', () => {
    rememberSecret(KEY);
    rememberSecret(OTHER);
    const text = `é début {"content":"key ${KEY} and ${KEY.toUpperCase()} and ${encodeURIComponent(KEY)}, split ${KEY.slice(0, 11)} ${KEY.slice(11, 22)}\n\t${KEY.slice(22)},` +
      ` base64 ${Buffer.from(`Bearer ${KEY}`).toString('base64')}, other ${OTHER}, json ${JSON.stringify(JSON.stringify(KEY))} ünïcødé"}\n\n`;
    const bytes = Buffer.from(text, 'utf8');
    const expected = Buffer.from(redactSecrets(text), 'utf8');
    expect(expected.toString()).not.toContain('LEAKCANARY');
    for (let a = 0; a < bytes.length; a += 3) {
      expect(scanCut(bytes, [a]).equals(expected), `cut at ${a}`).toBe(true);
    }
    for (let a = 0; a < bytes.length; a += 17) for (let b = a; b < bytes.length; b += 13) expect(scanCut(bytes, [a, b]).equals(expected), `cuts at ${a}, ${b}`).toBe(true);
    // One byte at a time.
    expect(scanCut(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)).equals(expected)).toBe(true);
  });

  it("holds back nothing of an SSE event (it ends in a blank line), and only a chunk's possible start of a secret otherwise", () => {
    rememberSecret(KEY);
    const scanner = new SecretScanner();
    const event = Buffer.from('data: {"choices":[{"delta":{"content":"Hello"}}]}\n\n');
    expect(scanner.push(event)).toEqual([event]);
    // A chunk ending inside a word waits for the next chunk from the run of words before it (a secret may hold whitespace).
    const first = Buffer.concat(scanner.push(Buffer.from('{"text":"the key is sk-proj-Zq8LEAK')));
    expect(first.toString()).toBe('{"text":"');
    const second = Buffer.concat(scanner.push(Buffer.from(`CANARYf00dT3stK3y, done"}`)));
    expect(second.toString()).toBe('the key is [redacted], done"}');
    expect(scanner.end()).toEqual([]);
  });
});
