import { ProviderError } from '../../errors/provider-error.ts';
import type { CancelSignal } from '../cancel-signal.ts';
import { readSseEvents } from '../read-sse-events.ts';
import type { UpstreamResponse } from '../transport.ts';
import { streamError } from './parse-stream-data.ts';

/**
 * The data payloads of an OpenAI-style SSE stream, as they arrive, up to `data: [DONE]`. An
 * `event: error` or a body that ends before `[DONE]` is a ProviderError, never a silent end.
 */
export async function* readUpstreamData(provider: string, response: UpstreamResponse, signal: CancelSignal): AsyncGenerator<string> {
  for await (const event of readSseEvents(provider, response, signal)) {
    if (event.data === '[DONE]') return;
    if (event.event === 'error') {
      let error: { message?: unknown; type?: unknown } | undefined;
      try {
        error = (JSON.parse(event.data) as { error?: { message?: unknown; type?: unknown } }).error;
      } catch {
        // The event's data is not JSON: the generic message below says enough.
      }
      const message = typeof error?.message === 'string' ? error.message : 'sent an error in the stream';
      throw streamError(provider, message, typeof error?.type === 'string' ? error.type : undefined);
    }
    yield event.data;
  }
  throw new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before it was complete', retryable: true, kind: 'stream' });
}
