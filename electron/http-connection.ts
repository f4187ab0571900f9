import { createParser } from 'eventsource-parser';
import type { Strategy } from '../core/config/config-schema.ts';
import { callManagementApi, ManagementApiError } from '../core/management/call-management-api.ts';
import { utcDay, type LiveEvent } from './model/tray-state.ts';
import { failingFromStatus, type RouterConnection } from './router-connection.ts';

const EVENT_NAMES = new Set(['request', 'breaker', 'key_cap', 'routing']);
/** After the event stream drops (server restarting), wait this long before reconnecting. */
const RECONNECT_MS = 3_000;

/** A `patchbay serve` already running on the data dir: its management API with the admin token. */
export function httpConnection(baseUrl: string, adminToken: string, dataDir: string): RouterConnection {
  const headers = { authorization: `Bearer ${adminToken}` };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let text: string;
    try {
      text = await callManagementApi(baseUrl, adminToken, { method, path, body, timeoutMs: 15_000 });
    } catch (error) {
      if (error instanceof ManagementApiError) throw new Error(`Patchbay at ${baseUrl} answered ${error.status}: ${error.message}`);
      throw error;
    }
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const stops = new Set<() => void>();
  return {
    mode: 'attached',
    baseUrl,
    dataDir,
    async snapshot() {
      const day = utcDay(Date.now());
      const [status, totals] = await Promise.all([
        call<{ strategy: Strategy; paused: boolean; endpoints: Record<string, { breaker: string }> }>('GET', '/status'),
        call<{ requests: number; cost_usd: number }>('GET', `/usage/totals?from=${day}&to=${day}`),
      ]);
      return { strategy: status.strategy, paused: status.paused, failingEndpoints: failingFromStatus(status.endpoints), today: { day, requests: totals.requests, costUsd: totals.cost_usd } };
    },
    async setStrategy(strategy) {
      await call('PUT', '/routing', { strategy });
    },
    async setPaused(paused) {
      await call('PUT', '/routing', { paused });
    },
    async createKey(name) {
      return (await call<{ secret: string }>('POST', '/keys', { name })).secret;
    },
    async signInUrl() {
      return (await call<{ url: string }>('POST', '/session/code')).url;
    },
    subscribe(listener) {
      const stop = followEvents(`${baseUrl}/api/events`, headers, listener);
      stops.add(stop);
      return () => {
        stops.delete(stop);
        stop();
      };
    },
    async close() {
      for (const stop of stops) stop();
      stops.clear();
    },
  };
}

/** Reads the SSE stream until stopped, reconnecting after a drop. */
function followEvents(url: string, headers: Record<string, string>, listener: (event: LiveEvent) => void): () => void {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const parser = createParser({
    onEvent(message) {
      if (!message.event || !EVENT_NAMES.has(message.event)) return;
      try {
        listener({ name: message.event, data: JSON.parse(message.data) } as LiveEvent);
      } catch {
        // A malformed frame or a listener's failure ends neither the stream nor the app.
      }
    },
  });
  const connect = async () => {
    try {
      const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal });
      if (response.ok && response.body) {
        const decoder = new TextDecoder();
        for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      }
    } catch {
      // dropped or refused: retry below unless stopped
    }
    parser.reset();
    if (!abort.signal.aborted) timer = setTimeout(connect, RECONNECT_MS);
  };
  void connect();
  return () => {
    clearTimeout(timer);
    abort.abort();
  };
}
