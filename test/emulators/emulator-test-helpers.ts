/** Raw-HTTP helpers for the emulator tests: no SDK, so the tests see exactly what is on the wire. */

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any;
}

export async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<RawResponse> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export interface SseEvent {
  event: string | undefined;
  data: string;
  /** `data` parsed as JSON, when it is JSON. */
  json: any;
}

/** Splits an SSE body into events, accepting `\n\n`, `\r\r` and `\r\n\r\n` separators. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split(/\r\n\r\n|\n\n|\r\r/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r\n|\n|\r/);
      const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        json = undefined;
      }
      return { event, data, json };
    });
}

/** Reads a streamed body until the server ends or cuts it; reports which. */
export async function readUntilEnd(url: string, init: { headers?: Record<string, string>; body: unknown }): Promise<{ status: number; text: string; cut: boolean }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...init.headers }, body: JSON.stringify(init.body) });
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    return { status: response.status, text, cut: false };
  } catch {
    return { status: response.status, text, cut: true };
  }
}
