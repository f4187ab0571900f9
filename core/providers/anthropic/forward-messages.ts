import { ProviderError } from '../../errors/provider-error.ts';
import { decodeAnthropicUsage, type AnthropicUsage } from '../../protocols/anthropic-messages/map-usage.ts';
import { toOpenAiUsage } from '../../protocols/openai/map-usage.ts';
import type { JsonReply, StreamReply, UpstreamCall } from '../provider-adapter.ts';
import { eventTooLarge } from '../read-sse-events.ts';
import { upstreamLimits } from '../upstream-limits.ts';
import { passAnswerThrough, PASS_THROUGH_AFTER_BYTES } from '../pass-answer-through.ts';
import { postToProvider, postToProviderForText } from '../post-to-provider.ts';
import { toTransportError } from '../transport-error.ts';
import { mapAnthropicError, mapStreamError, statusOfAnthropicError } from './map-error.ts';
import { createRelayState, relayMessageText } from './relay-message-stream.ts';

/** The caller's Messages call to forward: its body (model already replaced) and its anthropic-* headers. */
export interface ForwardedCall {
  body: string;
  headers: Record<string, string>;
}

/**
 * Anthropic in, Anthropic out: the caller's body goes upstream with only the model id replaced,
 * and the answer comes back as Anthropic wrote it, read for its usage on the way.
 */
export async function forwardMessages(forwarded: ForwardedCall, call: UpstreamCall, connectTimeoutMs: number): Promise<JsonReply> {
  const provider = call.provider.name;
  const answer = await postToProviderForText({ call, url: `${call.provider.baseUrl}/messages`, body: forwarded.body, forwardHeaders: forwarded.headers, connectTimeoutMs, mapError: mapAnthropicError, passThroughAfter: PASS_THROUGH_AFTER_BYTES });
  const { text, bytes, headers } = answer;
  if (answer.rest) {
    // Larger than the head: passed through, its usage (a top-level member, after the content) read on the way.
    return passAnswerThrough(provider, { ...answer, rest: answer.rest }, call.signal, {
      members: ['usage', 'error'],
      check(values) {
        const error = values.error as { type?: unknown } | undefined;
        if (error && typeof error === 'object') throw mapAnthropicError(provider, statusOfAnthropicError(error.type), headers, JSON.stringify({ type: 'error', error }));
      },
      usage: (values) => (values.usage && typeof values.usage === 'object' ? toOpenAiUsage(decodeAnthropicUsage(values.usage as AnthropicUsage)) : null),
    });
  }
  let parsed: { type?: unknown; error?: { type?: unknown }; usage?: AnthropicUsage } | null;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
  }
  if (parsed?.error && typeof parsed.error === 'object') throw mapAnthropicError(call.provider.name, statusOfAnthropicError(parsed.error.type), headers, text);
  return { body: text, bytes, usage: parsed?.usage ? toOpenAiUsage(decodeAnthropicUsage(parsed.usage)) : null };
}

/**
 * The streamed form: the upstream's SSE text forwarded event by event as it arrives
 * (relayMessageText). What comes before the first content block (message_start, pings) is held
 * back and sent with it, so an attempt that fails before any content leaks nothing and routing can
 * still fall back. An `event: error` or a body that ends before message_stop is a ProviderError
 * (the ingress codec writes the error event), thrown after the events that came before it.
 */
export async function forwardMessagesStream(forwarded: ForwardedCall, call: UpstreamCall, connectTimeoutMs: number): Promise<StreamReply> {
  const provider = call.provider.name;
  const response = await postToProvider({ call, url: `${call.provider.baseUrl}/messages`, body: forwarded.body, forwardHeaders: forwarded.headers, accept: 'text/event-stream', connectTimeoutMs, mapError: mapAnthropicError });
  let state = createRelayState();
  async function* chunks(): AsyncGenerator<string> {
    const text = new TextDecoder();
    const body = response.body[Symbol.asyncIterator]();
    const limit = upstreamLimits.maxEventBytes;
    let ended = false;
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await body.next();
        } catch (error) {
          ended = true;
          throw toTransportError(provider, error, call.signal);
        }
        if (next.done) {
          ended = true;
          break;
        }
        const step = relayMessageText(text.decode(next.value, { stream: true }), state);
        state = step.state;
        if (step.send) yield step.send;
        if (step.error) throw mapStreamError(provider, step.error);
        if (state.forward.stopped) break;
        if (state.carry.length > limit) throw eventTooLarge(provider, limit);
      }
      if (!state.forward.stopped) throw new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before message_stop', retryable: true, kind: 'stream' });
    } finally {
      if (!ended) await body.return?.();
    }
  }
  return { chunks: chunks(), usage: () => (state.forward.usage ? toOpenAiUsage(decodeAnthropicUsage(state.forward.usage)) : null) };
}

/** Anthropic's own count of a Messages body's input tokens (POST /v1/messages/count_tokens). */
export async function countMessageTokens(forwarded: ForwardedCall, call: UpstreamCall, connectTimeoutMs: number): Promise<JsonReply> {
  const { text, bytes } = await postToProviderForText({ call, url: `${call.provider.baseUrl}/messages/count_tokens`, body: forwarded.body, forwardHeaders: forwarded.headers, connectTimeoutMs, mapError: mapAnthropicError });
  let count: unknown;
  try {
    count = (JSON.parse(text) as { input_tokens?: unknown }).input_tokens;
  } catch {
    count = undefined;
  }
  if (typeof count !== 'number') throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered count_tokens without input_tokens', retryable: true });
  return { body: text, bytes, usage: null };
}
