import type { IngressCodec } from '../ingress-codec.ts';
import { encodeResponsesError } from './encode-error.ts';

/**
 * The Responses wire. Stream items are whole named events (`event: <type>\ndata: {...}\n\n`),
 * numbered by whoever wrote them (encode-stream.ts, or OpenAI on pass-through). The stream ends at
 * its terminal event, without [DONE]. A failure after the first byte is written by the stream
 * itself as response.failed with the next sequence_number (only it knows the number), so the
 * codec adds nothing then: an `error` event here would come after the terminal event.
 */
export const responsesCodec: IngressCodec = {
  frame: (item) => item,
  streamEnd: '',
  streamError: () => '',
  errorAnswer: (error) => encodeResponsesError(error),
};

/** One Responses SSE event. */
export function responsesEvent(payload: { type: string } & Record<string, unknown>): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}
