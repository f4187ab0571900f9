import { ProviderError } from '../errors/provider-error.ts';
import type { JsonReply, Usage } from './provider-adapter.ts';
import type { CancelSignal } from './cancel-signal.ts';
import { JsonMemberReader } from './read-json-members.ts';
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
 * the head, a dropped connection, a timeout or an answer that ends before its JSON does is a
 * ProviderError thrown from `rest.chunks`.
 */
export function passAnswerThrough(provider: string, answer: UpstreamText & { rest: NonNullable<UpstreamText['rest']> }, signal: CancelSignal, rules: PassThroughRules): JsonReply {
  const { rest } = answer;
  const reader = new JsonMemberReader(rules.members);
  reader.feed(answer.bytes);
  try {
    if (reader.malformed) throw new ProviderError({ provider, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
    rules.check(reader.values);
  } catch (error) {
    rest.cancel(new Error('the answer failed its check'));
    throw error;
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    const source = rest[Symbol.asyncIterator]();
    let ended = false;
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
        reader.feed(next.value);
        yield next.value;
      }
      if (!reader.complete) throw new ProviderError({ provider, upstreamStatus: 502, message: 'the answer ended before its JSON did', retryable: true, kind: 'stream' });
    } finally {
      if (!ended) await source.return?.(undefined);
    }
  }
  return { body: '', bytes: answer.bytes, usage: null, rest: { chunks: chunks(), usage: () => rules.usage(reader.values) } };
}
