/** OpenAI's finish reasons that a Gemini answer can end with. */
export type OpenAiFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * Gemini finishReason to OpenAI (reference 7.4). Gemini has no "tool calls" reason: a turn that
 * calls functions ends with STOP, so the caller says whether the candidate held a functionCall.
 * RECITATION is a filter (the answer was withheld for quoting), as vercel/ai maps it. Malformed
 * or unexpected tool calls end the turn without usable calls: `stop`. Unknown values are `stop`.
 */
const FINISH_REASONS: Record<string, OpenAiFinishReason> = {
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  LANGUAGE: 'content_filter',
};

export function mapFinishReason(reason: string | undefined, hasFunctionCall: boolean): OpenAiFinishReason {
  if (reason === 'STOP' && hasFunctionCall) return 'tool_calls';
  return (reason && FINISH_REASONS[reason]) || 'stop';
}
