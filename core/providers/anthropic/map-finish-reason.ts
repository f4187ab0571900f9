import type { FinishReason } from '../../protocols/openai/chat-types.ts';

const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  // The matched sequence is left out of the text, as OpenAI does.
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  // A server-tool turn paused for length; the caller may send it back to continue.
  pause_turn: 'stop',
  refusal: 'content_filter',
};

/**
 * Anthropic `stop_reason` -> OpenAI `finish_reason` (reference §7.4). `tool_use` becomes `stop`
 * when no tool call reaches the client: the only call was the JSON-response tool, whose input
 * is the answer. Unknown or missing reasons are `stop`, the answer having ended normally.
 */
export function mapFinishReason(stopReason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  const reason = (stopReason && FINISH_REASONS[stopReason]) || 'stop';
  return reason === 'tool_calls' && !hasToolCalls ? 'stop' : reason;
}
