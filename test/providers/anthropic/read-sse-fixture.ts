import { readFileSync } from 'node:fs';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** The SSE events of a recorded wire text, parsed as the adapter's transport parses them. */
export function parseSse(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

export function readSseFixture(name: string): EventSourceMessage[] {
  return parseSse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
}

/** One Anthropic event framed as on the wire: the event name repeated as `type` in the data. */
export function sse(data: { type: string } & Record<string, unknown>): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}
