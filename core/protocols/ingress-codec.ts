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
  /**
   * A wire-ready item written whenever a stream has sent nothing for `afterMs` (Anthropic's
   * `ping`), so clients and proxies with idle timeouts keep the connection through an upstream's
   * long silence (thinking, a slow tool call). Absent: nothing is written (OpenAI has no keep-alive).
   */
  readonly keepAlive?: { item: string; afterMs: number };
}
