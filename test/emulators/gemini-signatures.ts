import { isRecord } from './emulator-common.ts';
import { field, type GoogleError } from './gemini-wire.ts';

/**
 * Thought signatures as the Gemini API checks them (ai.google.dev/gemini-api/docs/thought-signatures,
 * provider-wire.md §3.2): a signature is opaque and only Gemini can read it, so one it did not
 * make is refused; Gemini 3 also requires, in the current turn (since the last user message with
 * text), the signature on the first functionCall part of each model step, unless the documented
 * skip value stands in for it. The messages are the API's as quoted in public threads.
 */

export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** The signature this emulator puts on a Gemini answer part: recognisable as its own. */
export function geminiSignature(responseId: string): string {
  return `EMU-SIG-${responseId}`;
}

const ownSignature = (value: string) => value === SKIP_SIGNATURE || /^EMU-SIG-[A-Za-z0-9]+$/.test(value);

/** Gemini 3 and later think on every call and check the signatures of replayed function calls. */
export function validatesSignatures(model: string): boolean {
  const match = /^gemini-(\d+)/.exec(model);
  return match !== null && Number(match[1]) >= 3;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function validateThoughtSignatures(body: Record<string, unknown>, model: string): GoogleError | null {
  const contents = list(field(body, 'contents'));
  for (const [i, content] of contents.entries()) {
    for (const [j, part] of list(field(content, 'parts')).entries()) {
      const signature = field(part, 'thoughtSignature');
      if (signature === undefined) continue;
      if (typeof signature !== 'string' || !ownSignature(signature)) {
        return { code: 400, status: 'INVALID_ARGUMENT', message: `Corrupted thought signature at contents[${i}].parts[${j}].` };
      }
    }
  }
  if (!validatesSignatures(model)) return null;
  const userAsk = (content: unknown) => field(content, 'role') !== 'model' && list(field(content, 'parts')).some((p) => typeof field(p, 'text') === 'string');
  let start = 0;
  contents.forEach((content, i) => {
    if (userAsk(content)) start = i + 1;
  });
  for (const [i, content] of contents.entries()) {
    if (i < start || field(content, 'role') !== 'model') continue;
    const parts = list(field(content, 'parts'));
    const first = parts.findIndex((p) => isRecord(p) && field(p, 'functionCall') !== undefined);
    if (first < 0 || field(parts[first], 'thoughtSignature') !== undefined) continue;
    const name = String(field(field(parts[first], 'functionCall'), 'name'));
    return {
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${first + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    };
  }
  return null;
}
