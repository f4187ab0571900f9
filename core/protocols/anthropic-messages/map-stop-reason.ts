import type { FinishReason } from '../neutral/stream-part.ts';

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'stop-sequence': 'stop_sequence',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  error: 'end_turn',
  other: 'end_turn',
};

/** Neutral finish reason -> Anthropic stop_reason. */
export function encodeStopReason(reason: FinishReason): string {
  return STOP_REASONS[reason];
}
