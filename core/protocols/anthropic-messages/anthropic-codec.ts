import type { IngressCodec } from '../ingress-codec.ts';
import { encodeAnthropicError } from './encode-error.ts';

/**
 * Anthropic Messages' wire. Stream items are already whole named events (encode-stream.ts, or
 * Anthropic's own on pass-through), ending with message_stop; a failure after the first byte is
 * `event: error`, which the SDK throws on.
 */
export const anthropicCodec: IngressCodec = {
  frame: (item) => item,
  streamEnd: '',
  streamError: (error) => `event: error\ndata: ${JSON.stringify(encodeAnthropicError(error).body)}\n\n`,
  errorAnswer: (error) => encodeAnthropicError(error),
  // Anthropic pings during its own silences; 5 s stays well inside the shortest idle timeouts of
  // common proxies and HTTP clients (Claude Code's included) at the cost of a few bytes.
  keepAlive: { item: 'event: ping\ndata: {"type":"ping"}\n\n', afterMs: 5000 },
};
