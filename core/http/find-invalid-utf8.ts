/**
 * The byte offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or -1. Only called once the native
 * `isUtf8` has said the buffer is bad, so its speed does not matter; its answer must match
 * TextDecoder's fatal mode.
 */
export function findInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    const length = sequenceLength(lead);
    if (length === 0) return i;
    // The second byte's range depends on the lead (this is where overlongs, surrogates and
    // code points above U+10FFFF are excluded); later bytes are plain continuation bytes.
    const [low, high] = secondByteRange(lead);
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k];
      if (byte === undefined) return i;
      const ok = k === 1 ? byte >= low && byte <= high : byte >= 0x80 && byte <= 0xbf;
      if (!ok) return i;
    }
    i += length;
  }
  return -1;
}

function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}
