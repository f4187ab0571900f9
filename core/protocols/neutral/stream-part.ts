import type { NeutralUsage } from './neutral-usage.ts';

/** Why an answer ended, in Patchbay's terms; each codec maps it to its protocol's word. */
export type FinishReason = 'stop' | 'length' | 'stop-sequence' | 'tool-calls' | 'content-filter' | 'error' | 'other';

/**
 * One piece of an answer as it arrives, whatever the upstream. A non-streamed answer is the same
 * parts collected. Blocks are implicit: a part of another kind (or a new tool-call-start) ends the
 * current one, so an encoder never has two blocks open.
 */
export type StreamPart = (
  /** The upstream accepted the request. `usage` only when it knows the input before output (Anthropic). */
  | { type: 'start'; id?: string; model?: string; usage?: NeutralUsage }
  | { type: 'text-delta'; text: string }
  /** `id` is the upstream's when it has one, else minted by the adapter; stable for the whole answer. */
  | { type: 'tool-call-start'; id: string; name: string }
  /** A fragment of the current tool call's arguments (JSON text). */
  | { type: 'tool-call-delta'; argumentsDelta: string }
  | { type: 'reasoning-delta'; text: string }
  /** Closes the current reasoning block with its signature (Anthropic's; Gemini's thoughtSignature, alone when it signed an answer part). */
  | { type: 'reasoning-signature'; signature: string }
  | { type: 'redacted-reasoning'; data: string }
  /** One answer ended; `usage` counts the whole request (every answer of it), the last one given wins. */
  | { type: 'finish'; reason: FinishReason; stopSequence?: string | null; usage: NeutralUsage | null }
) & {
  /** Which answer the part belongs to when several were asked for (NeutralRequest.choices); absent = 0. */
  choice?: number;
};

/** An answer as parts: what an adapter returns for a neutral request. */
export interface PartStream {
  parts: AsyncIterator<StreamPart>;
}
