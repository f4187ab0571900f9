/**
 * How one ingress protocol writes what the protocol-blind serving code hands it: stream items,
 * the stream's end, and errors. `serve-routed` and the error renderer take one of these; nothing
 * there knows OpenAI's or Anthropic's framing.
 */
export interface IngressCodec {
  /** One stream item as it goes on the wire. */
  frame(item: string): string;
  /** What ends a stream that completed. */
  readonly streamEnd: string;
  /** An error as a stream's last event, once the answer has begun. */
  streamError(error: unknown): string;
  /** An error answer before anything was sent: its status and JSON body. */
  errorAnswer(error: unknown): { status: number; body: unknown };
}
