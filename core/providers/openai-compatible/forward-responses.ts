import { ProviderError } from '../../errors/provider-error.ts';
import { readResponsesUsage } from '../../protocols/openai-responses/map-usage.ts';
import type { JsonReply, StreamReply, UpstreamCall, Usage } from '../provider-adapter.ts';
import { sseDecoder } from '../read-sse-events.ts';
import { passAnswerThrough, PASS_THROUGH_AFTER_BYTES } from '../pass-answer-through.ts';
import { postToProvider, postToProviderForText } from '../post-to-provider.ts';
import { toTransportError } from '../transport-error.ts';
import { mapOpenAiError, statusOfErrorBody } from './map-error.ts';

/** Lifecycle events OpenAI sends before any output: held back, so an attempt that fails before output can fall back. */
const PREAMBLE = new Set(['response.created', 'response.in_progress', 'response.queued']);
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A failure OpenAI reported inside a stream or a 200 body (`{code, message}`), as a ProviderError routing can act on. */
function reportedFailure(provider: string, error: unknown): ProviderError {
  const e = (error && typeof error === 'object' ? error : {}) as { code?: unknown; message?: unknown; type?: unknown };
  const status = statusOfErrorBody({ code: e.code, type: e.type ?? e.code });
  return new ProviderError({
    provider,
    upstreamStatus: status,
    message: typeof e.message === 'string' && e.message ? e.message : 'the response failed',
    code: typeof e.code === 'string' ? e.code : null,
    retryable: status === 429 || status >= 500,
    kind: 'stream',
  });
}

/**
 * Responses in, OpenAI out: the caller's body (model id already replaced) goes to
 * {baseUrl}/responses and OpenAI's answer comes back as it wrote it, read for its usage. A 200
 * whose response failed is a failure like any other, so fallback and health see it.
 */
export async function forwardResponse(body: string, call: UpstreamCall, connectTimeoutMs: number): Promise<JsonReply> {
  const provider = call.provider.name;
  const answer = await postToProviderForText({ call, url: `${call.provider.baseUrl}/responses`, body, connectTimeoutMs, mapError: mapOpenAiError, passThroughAfter: PASS_THROUGH_AFTER_BYTES });
  const { text, bytes } = answer;
  if (answer.rest) {
    // Larger than the head: passed through; `status` and `error` come before the output, `usage` after it.
    return passAnswerThrough(provider, { ...answer, rest: answer.rest }, call.signal, {
      members: ['status', 'error', 'usage'],
      check(values) {
        if (values.status === 'failed' || (values.error && values.status === undefined)) throw reportedFailure(provider, values.error);
      },
      usage: (values) => readResponsesUsage(values.usage),
    });
  }
  let parsed: { status?: unknown; error?: unknown; usage?: unknown } | null;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new ProviderError({ provider, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
  }
  if (parsed?.status === 'failed' || (parsed?.error && parsed.status === undefined)) throw reportedFailure(provider, parsed.error);
  return { body: text, bytes, usage: readResponsesUsage(parsed?.usage) };
}

/**
 * The streamed form: OpenAI's events forwarded one whole event at a time, each event's data
 * unchanged (re-framed as `event:` + `data:` lines, so an event is never split across writes and
 * a closing response.failed can always follow). The preamble is held back until the first output
 * event. After output has gone out, a cut stream or an `error` without a terminal event ends with
 * a response.failed numbered after OpenAI's last event; a failure is rethrown after its event so
 * the request is recorded as failed.
 */
export async function forwardResponseStream(body: string, call: UpstreamCall, connectTimeoutMs: number): Promise<StreamReply> {
  const provider = call.provider.name;
  const response = await postToProvider({ call, url: `${call.provider.baseUrl}/responses`, body, accept: 'text/event-stream', connectTimeoutMs, mapError: mapOpenAiError });
  let usage: Usage | null = null;
  async function* chunks(): AsyncGenerator<string> {
    const decode = sseDecoder(provider);
    const source = response.body[Symbol.asyncIterator]();
    let held = '';
    let committed = false;
    let sequence = -1;
    let lifecycle: Record<string, unknown> | null = null;
    let failure: ProviderError | null = null;
    let ended = false;
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await source.next();
        } catch (error) {
          ended = true;
          throw toTransportError(provider, error, call.signal);
        }
        if (next.done) {
          ended = true;
          break;
        }
        let out = '';
        let terminal = false;
        for (const message of decode(next.value)) {
          let event: { type?: unknown; sequence_number?: unknown; response?: Record<string, unknown> & { usage?: unknown; error?: unknown }; error?: unknown; code?: unknown; message?: unknown };
          try {
            event = JSON.parse(message.data) as typeof event;
          } catch {
            continue; // Not an event (a keep-alive or [DONE]): nothing a Responses client reads.
          }
          const type = typeof event.type === 'string' ? event.type : (message.event ?? '');
          if (typeof event.sequence_number === 'number') sequence = event.sequence_number;
          if (event.response && typeof event.response === 'object') lifecycle = event.response;
          if (type === 'error') failure = reportedFailure(provider, event.error ?? event);
          if (type === 'response.failed') failure = reportedFailure(provider, event.response?.error);
          if (!committed && failure) throw failure;
          if (TERMINAL.has(type)) {
            usage = readResponsesUsage(event.response?.usage);
            terminal = true;
          }
          const framed = `event: ${type}\ndata: ${message.data}\n\n`;
          if (!committed && PREAMBLE.has(type)) held += framed;
          else {
            committed = true;
            out += held + framed;
            held = '';
          }
          if (terminal) break;
        }
        if (out !== '') yield out;
        if (terminal) {
          if (failure) throw failure;
          return;
        }
      }
      throw failure ?? new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before response.completed', retryable: true, kind: 'stream' });
    } catch (error) {
      if (committed && !(error === failure && lifecycle?.status === 'failed')) {
        const { output: _output, ...response } = lifecycle ?? {};
        const code = error instanceof ProviderError && error.status === 429 ? 'rate_limit_exceeded' : 'server_error';
        const failed = { type: 'response.failed', sequence_number: sequence + 1, response: { ...response, status: 'failed', error: { code, message: error instanceof Error ? error.message : String(error) } } };
        yield `event: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
      }
      throw error;
    } finally {
      if (!ended) await source.return?.();
    }
  }
  return { chunks: chunks(), usage: () => usage };
}
