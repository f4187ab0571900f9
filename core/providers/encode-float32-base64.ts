/**
 * OpenAI's base64 embedding encoding (§1.6): the vector as IEEE-754 float32, little-endian,
 * one value after another, in standard base64 with padding. Written with explicit
 * little-endian stores so the result does not depend on the machine's byte order.
 */
export function encodeFloat32Base64(values: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) bytes.writeFloatLE(values[i], i * 4);
  return bytes.toString('base64');
}

/** The inverse, as openai-node decodes it (§8.6: honour the buffer's offset and length). */
export function decodeFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const values: number[] = [];
  for (let offset = 0; offset + 4 <= bytes.length; offset += 4) values.push(bytes.readFloatLE(offset));
  return values;
}
