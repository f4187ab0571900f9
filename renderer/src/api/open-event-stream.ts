import { sessionHeaders } from '../session/session-token.ts';
import { announceUnauthorized, readError } from './api-client.ts';

export type StreamState = 'connecting' | 'live' | 'offline';

export interface EventStreamHandlers {
  onEvent(name: string, data: string): void;
  onState(state: StreamState): void;
}

const RETRY_MS = 3_000;

/**
 * Follows a Server-Sent Events stream of /api (GET /api/events) with fetch rather than
 * EventSource: EventSource cannot send headers, and the session's page half travels in
 * X-Patchbay-Session, never in a URL. Reconnects after a dropped stream, as EventSource would;
 * a 401 ends the session (back to sign-in) and stops. Returns the function that closes it.
 */
export function openEventStream(path: string, handlers: EventStreamHandlers): () => void {
  const controller = new AbortController();
  let retry: ReturnType<typeof setTimeout> | undefined;

  const connect = async () => {
    handlers.onState('connecting');
    try {
      const res = await fetch(`/api${path}`, { headers: { ...sessionHeaders(), accept: 'text/event-stream' }, credentials: 'same-origin', signal: controller.signal, cache: 'no-store' });
      if (res.status === 401) {
        handlers.onState('offline');
        announceUnauthorized(await readError(res));
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      handlers.onState('live');
      await readFrames(res.body, handlers.onEvent);
    } catch {
      if (controller.signal.aborted) return;
    }
    if (controller.signal.aborted) return;
    handlers.onState('offline');
    retry = setTimeout(() => void connect(), RETRY_MS);
  };
  void connect();
  return () => {
    controller.abort();
    clearTimeout(retry);
  };
}

/** Reads SSE frames (blank-line separated; `event:` and `data:` fields) until the stream ends. */
async function readFrames(body: ReadableStream<Uint8Array>, onEvent: (name: string, data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = text;
        else if (field === 'data') data.push(text);
      }
      if (data.length > 0) onEvent(name, data.join('\n'));
    }
  }
}
