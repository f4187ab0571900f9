import type { FinishReason } from '../../protocols/neutral/stream-part.ts';

const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop-sequence',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  // A server-tool turn paused for length; the caller may send it back to continue.
  pause_turn: 'stop',
  refusal: 'content-filter',
};

/**
 * Anthropic `stop_reason` -> neutral (reference §7.4). Unknown or missing reasons are `stop`, the
 * answer having ended normally. (A `tool_use` stop whose only call was JSON mode's answer tool
 * reaches an OpenAI client as `stop`: no tool call reached it.)
 */
export function mapFinishReason(stopReason: string | null | undefined): FinishReason {
  return (stopReason && FINISH_REASONS[stopReason]) || 'stop';
}
