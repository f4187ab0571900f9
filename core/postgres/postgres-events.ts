import type pg from 'pg';
import type { EventHub, EventListener } from '../events/event-hub.ts';
import type { RequestRow } from '../usage/usage-views.ts';
import type { PostgresListener } from './postgres-listener.ts';

/** The channel every replica publishes its requests on; each payload is `{"from": replica, "requests": [...]}`. */
export const EVENTS_CHANNEL = 'patchbay_events';
/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more: stay below with room for the envelope. */
export const MAX_PAYLOAD_BYTES = 7_800;
/** Requests of one replica are sent together at most this often: one NOTIFY per batch, not per request. */
const BATCH_MS = 100;
/** Longer text (an upstream's error message, a route reason) is cut in the relayed event; the row keeps it whole. */
const MAX_TEXT = 240;

/**
 * Live events across replicas: each replica publishes the request events of its own /v1 requests
 * through NOTIFY, in batches, and emits those of the other replicas into its own hub, so the
 * dashboard's GET /api/events on any replica shows every replica's requests. An event carries the
 * usage row's fields the dashboard shows (redacted as stored: never a secret, never content), cut
 * to fit PostgreSQL's payload limit. Delivery is best effort, as live events are: a replica whose
 * LISTEN connection is away misses them; the request log (read from the database) has every row.
 */
export class PostgresEventRelay {
  private readonly pool: pg.Pool;
  private readonly replica: string;
  private readonly hub: EventHub;
  private readonly log: (message: string) => void;
  /** Rows that came from another replica: not published again. */
  private readonly relayed = new WeakSet<object>();
  private pending: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly unsubscribe: () => void;
  private failing = false;

  constructor(pool: pg.Pool, listener: PostgresListener, options: { replica: string; hub: EventHub; log: (message: string) => void }) {
    this.pool = pool;
    this.replica = options.replica;
    this.hub = options.hub;
    this.log = options.log;
    listener.add(EVENTS_CHANNEL, { notify: (payload) => this.receive(payload), connected: async () => undefined });
    const publish: EventListener = (name, data) => {
      if (name === 'request' && !this.relayed.has(data as object)) this.queue(data as RequestRow);
    };
    // Subscribed for the replica's life: another replica's dashboard may be watching.
    this.unsubscribe = this.hub.subscribe(publish);
  }

  private queue(row: RequestRow): void {
    this.pending.push(JSON.stringify(compactRow(row)));
    this.timer ??= setTimeout(() => void this.send(), BATCH_MS);
  }

  /** Packs the waiting events into as few NOTIFYs as fit, in one round trip. */
  private async send(): Promise<void> {
    this.timer = null;
    const events = this.pending;
    this.pending = [];
    const envelope = (items: string[]) => `{"from":${JSON.stringify(this.replica)},"requests":[${items.join(',')}]}`;
    const payloads: string[] = [];
    let batch: string[] = [];
    for (const event of events) {
      if (Buffer.byteLength(envelope([event])) >= MAX_PAYLOAD_BYTES) continue; // a row that cannot fit even alone (never seen: every text is cut)
      if (batch.length && Buffer.byteLength(envelope([...batch, event])) >= MAX_PAYLOAD_BYTES) {
        payloads.push(envelope(batch));
        batch = [];
      }
      batch.push(event);
    }
    if (batch.length) payloads.push(envelope(batch));
    if (!payloads.length) return;
    try {
      const values = [EVENTS_CHANNEL, ...payloads];
      await this.pool.query(`SELECT ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(', ')}`, values);
      if (this.failing) this.log('Live events reach the other replicas again.');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.log(`Live events could not reach the other replicas (${(error as Error).message}); their dashboards miss this replica's requests until PostgreSQL answers.`);
      this.failing = true;
    }
  }

  private receive(payload: string): void {
    let message: { from?: unknown; requests?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    // The relay itself is one subscriber: relay only when a dashboard listens here too.
    if (message.from === this.replica || !Array.isArray(message.requests) || this.hub.subscriberCount < 2) return;
    for (const row of message.requests as RequestRow[]) {
      if (typeof row !== 'object' || row === null) continue;
      this.relayed.add(row);
      this.hub.emit('request', row);
    }
  }

  close(): void {
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

const cut = (text: string | null | undefined) => (typeof text === 'string' && text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

/** The row as the live event carries it: long texts cut, and the replica's own event shape otherwise. */
export function compactRow(row: RequestRow): RequestRow {
  return {
    ...row,
    route_reason: cut(row.route_reason) ?? null,
    attempts: row.attempts.slice(0, 8).map((attempt) => {
      const copy = { ...attempt } as Record<string, unknown>;
      for (const [name, value] of Object.entries(copy)) if (typeof value === 'string') copy[name] = cut(value);
      return copy as unknown as (typeof row.attempts)[number];
    }),
  };
}
