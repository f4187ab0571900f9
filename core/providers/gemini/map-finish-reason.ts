import type { FinishReason } from '../../protocols/neutral/stream-part.ts';

/**
 * Gemini finishReason -> neutral (reference 7.4). Gemini has no "tool calls" reason: a turn that
 * calls functions ends with STOP, so the caller says whether the candidate held a functionCall.
 * RECITATION is a filter (the answer was withheld for quoting), as vercel/ai maps it. Malformed
 * or unexpected tool calls end the turn without usable calls: `stop`. Unknown values are `stop`.
 */
const FINISH_REASONS: Record<string, FinishReason> = {
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  IMAGE_RECITATION: 'content-filter',
  LANGUAGE: 'content-filter',
};

export function mapFinishReason(reason: string | undefined, hasFunctionCall: boolean): FinishReason {
  if (reason === 'STOP' && hasFunctionCall) return 'tool-calls';
  return (reason && FINISH_REASONS[reason]) || 'stop';
}
