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

/** A dashboard watching on some replica makes the others publish for this long; it renews every third of it. */
export const WATCH_LEASE_MS = 30_000;

/**
 * Live events across replicas: each replica publishes the request events of its own /v1 requests
 * through NOTIFY, in batches, and emits those of the other replicas into its own hub, so the
 * dashboard's GET /api/events on any replica shows every replica's requests. Only while someone
 * watches: a replica with a dashboard's event stream open announces it on the channel (renewed
 * every WATCH_LEASE_MS / 3), and the others publish until that lease runs out, so with no
 * dashboard open a request costs no event and no NOTIFY. An event carries the usage row's fields
 * the dashboard shows (redacted as stored: never a secret, never content), cut to fit PostgreSQL's
 * payload limit. Delivery is best effort, as live events are: a replica whose LISTEN connection is
 * away misses them; the request log (read from the database) has every row.
 */
export class PostgresEventRelay {
  private readonly pool: pg.Pool;
  private readonly replica: string;
  private readonly hub: EventHub;
  private readonly log: (message: string) => void;
  private readonly clock: () => number;
  /** Rows that came from another replica: not published again. */
  private readonly relayed = new WeakSet<object>();
  private pending: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private failing = false;
  /** Until when another replica's dashboard watches (0: none known). */
  private watchedUntil = 0;
  /** This replica's publishing subscription to its hub, while another replica watches. */
  private unsubscribe: (() => void) | null = null;
  /** Renews this replica's announcement while its own dashboards watch. */
  private announcing: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(pool: pg.Pool, listener: PostgresListener, options: { replica: string; hub: EventHub; log: (message: string) => void; clock?: () => number }) {
    this.pool = pool;
    this.replica = options.replica;
    this.hub = options.hub;
    this.log = options.log;
    this.clock = options.clock ?? Date.now;
    listener.add(EVENTS_CHANNEL, {
      notify: (payload) => this.receive(payload),
      // Back after an outage: say again that a dashboard watches here, the others may have let the lease go.
      connected: async () => {
        if (this.localWatchers() > 0) await this.announce();
      },
    });
    this.hub.onSubscribersChange = () => this.updateAnnouncing();
  }

  /** Another replica's dashboard watches now: this replica publishes. */
  get publishing(): boolean {
    return this.unsubscribe !== null && this.clock() < this.watchedUntil;
  }

  /** The dashboards' event streams open on this replica (the relay's own subscription left out). */
  private localWatchers(): number {
    return this.hub.subscriberCount - (this.unsubscribe ? 1 : 0);
  }

  private updateAnnouncing(): void {
    const watching = !this.closed && this.localWatchers() > 0;
    if (watching && !this.announcing) {
      void this.announce();
      this.announcing = setInterval(() => void this.announce(), WATCH_LEASE_MS / 3);
      this.announcing.unref();
    } else if (!watching && this.announcing) {
      clearInterval(this.announcing);
      this.announcing = null;
    }
  }

  private async announce(): Promise<void> {
    await this.notify([JSON.stringify({ from: this.replica, watch: true })]);
  }

  private startPublishing(): void {
    if (this.unsubscribe || this.closed) return;
    const publish: EventListener = (name, data) => {
      if (this.clock() >= this.watchedUntil) return this.stopPublishing();
      if (name === 'request' && !this.relayed.has(data as object)) this.queue(data as RequestRow);
    };
    // Marked before subscribing: the hub's change callback counts this subscription out.
    this.unsubscribe = () => undefined;
    this.unsubscribe = this.hub.subscribe(publish);
  }

  private stopPublishing(): void {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = null;
    unsubscribe?.();
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
    await this.notify(payloads);
  }

  private async notify(payloads: string[]): Promise<void> {
    if (!payloads.length || this.closed) return;
    try {
      await this.pool.query(`SELECT ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(', ')}`, [EVENTS_CHANNEL, ...payloads]);
      if (this.failing) this.log('Live events reach the other replicas again.');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.log(`Live events could not reach the other replicas (${(error as Error).message}); their dashboards miss this replica's requests until PostgreSQL answers.`);
      this.failing = true;
    }
  }

  private receive(payload: string): void {
    let message: { from?: unknown; watch?: unknown; requests?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    if (message.from === this.replica) return;
    if (message.watch === true) {
      this.watchedUntil = this.clock() + WATCH_LEASE_MS;
      this.startPublishing();
      return;
    }
    if (!Array.isArray(message.requests) || this.localWatchers() === 0) return;
    for (const row of message.requests as RequestRow[]) {
      if (typeof row !== 'object' || row === null) continue;
      this.relayed.add(row);
      this.hub.emit('request', row);
    }
  }

  close(): void {
    this.closed = true;
    this.hub.onSubscribersChange = null;
    if (this.announcing) clearInterval(this.announcing);
    this.announcing = null;
    this.stopPublishing();
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
