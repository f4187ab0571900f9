import { ProviderError } from '../errors/provider-error.ts';
import type { JsonReply, Usage } from './provider-adapter.ts';
import type { CancelSignal } from './cancel-signal.ts';
import { JsonMemberReader } from './read-json-members.ts';
import { scanWindow, SecretScanner } from './scan-secrets.ts';
import { toTransportError } from './transport-error.ts';
import type { UpstreamText } from './upstream-response.ts';

/**
 * How much of a same-protocol JSON answer is held before the rest is passed through as it
 * arrives. Nearly every answer is smaller, and is read, checked and sent whole as before; a larger
 * one is checked on this head (not JSON, an error member) while it can still fall back, then
 * streamed with its usage read on the way.
 */
export const PASS_THROUGH_AFTER_BYTES = 64 * 1024;

export interface PassThroughRules {
  /** The top-level members read from the answer (its usage, and what says it failed). */
  members: readonly string[];
  /** Throws the failure the head's members show (an `error`, a failed status); called before anything is sent. */
  check(values: Record<string, unknown>): void;
  usage(values: Record<string, unknown>): Usage | null;
}

/**
 * The reply for an answer that went past the head (`answer.rest` set): `bytes` is the head, and
 * `rest` yields the remaining bytes unchanged while reading the members. A head that is not a JSON
 * object, or shows a failure, aborts the upstream call and throws (routing may fall back). After
 * the head, a dropped connection, a timeout, an answer that ends before its JSON does, or a member
 * that shows a failure (an `error` after 70 KB of a chunked 200) is a ProviderError thrown from
 * `rest.chunks`: the client's connection is cut rather than the answer ending as a success.
 *
 * Provider secrets are redacted on the way (scan-secrets.ts): the rest's chunks by the upstream
 * body itself, the head and its junction with the rest here, so a key quoted across the head's
 * end is caught too.
 */
export function passAnswerThrough(provider: string, answer: UpstreamText & { rest: NonNullable<UpstreamText['rest']> }, signal: CancelSignal, rules: PassThroughRules): JsonReply {
  const { rest } = answer;
  const reader = new JsonMemberReader(rules.members);
  // The junction: the head's end may hold the start of a secret that the rest's first bytes finish.
  const junction = new SecretScanner();
  const head = Buffer.concat(junction.push(answer.bytes));
  reader.feed(head);
  try {
    if (reader.malformed) throw new ProviderError({ provider, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
    rules.check(reader.values);
  } catch (error) {
    rest.cancel(new Error('the answer failed its check'));
    throw error;
  }
  let checked = reader.read;
  async function* chunks(): AsyncGenerator<Buffer> {
    const source = rest[Symbol.asyncIterator]();
    let ended = false;
    // The rest's bytes seen through the junction scanner; past its window it is done.
    let throughJunction = 0;
    try {
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await source.next();
        } catch (error) {
          ended = true;
          throw toTransportError(provider, error, signal);
        }
        if (next.done) {
          ended = true;
          break;
        }
        let chunk = next.value;
        if (throughJunction >= 0) {
          throughJunction += chunk.length;
          const pieces = junction.push(chunk);
          if (throughJunction >= scanWindow()) {
            pieces.push(...junction.end());
            throughJunction = -1;
          }
          chunk = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
        }
        if (chunk.length === 0) continue;
        read(chunk);
        yield chunk;
      }
      const last = throughJunction >= 0 ? Buffer.concat(junction.end()) : null;
      if (last && last.length > 0) {
        read(last);
        yield last;
      }
      if (!reader.complete) throw new ProviderError({ provider, upstreamStatus: 502, message: 'the answer ended before its JSON did', retryable: true, kind: 'stream' });
    } finally {
      if (!ended) await source.return?.(undefined);
    }
  }
  /** Reads a chunk for its members and checks what is new among them: a failure throws before the chunk goes out. */
  function read(chunk: Buffer): void {
    reader.feed(chunk);
    if (reader.read === checked) return;
    checked = reader.read;
    rules.check(reader.values);
  }
  return { body: '', bytes: head, usage: null, rest: { chunks: chunks(), usage: () => rules.usage(reader.values) } };
}
