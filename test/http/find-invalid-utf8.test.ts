import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { findInvalidUtf8 } from '../../core/http/find-invalid-utf8.ts';

describe('findInvalidUtf8', () => {
  it.each([
    ['Latin-1 é', [0x63, 0x61, 0x66, 0xe9], 3],
    ['lone continuation byte', [0x61, 0x80], 1],
    ['overlong slash', [0xc0, 0xaf], 0],
    ['overlong three-byte', [0xe0, 0x80, 0xaf], 0],
    ['UTF-16 surrogate encoded', [0x61, 0xed, 0xa0, 0x80], 1],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['truncated at the end', [0x61, 0x62, 0xe2, 0x82], 2],
    ['0xFF', [0xff], 0],
  ])('%s: offset %#', (_name, bytes, offset) => {
    expect(findInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });

  it('agrees with the native validator on random bytes, and everything before the offset is valid UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const offset = findInvalidUtf8(bytes);
        expect(offset === -1).toBe(isUtf8(bytes));
        if (offset !== -1) expect(isUtf8(bytes.subarray(0, offset))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('finds nothing in valid text of every width', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => findInvalidUtf8(Buffer.from(text, 'utf8')) === -1));
  });
});
