import pg from 'pg';

const RECONNECT_MS = 500;

export interface ChannelHandler {
  /** A notification on the channel (PostgreSQL delivers it once its transaction commits). */
  notify(payload: string): void;
  /**
   * Runs after every (re)connection, once LISTEN is in place: reload what may have changed while
   * the connection was away, so a replica that missed notifications catches up.
   */
  connected(): Promise<void>;
}

/** What a LISTEN connection says in the log when it is lost and when it is back (once per outage). */
export interface ListenerWording {
  /** The connection's application_name (pg_stat_activity shows whose it is). */
  name: string;
  /** Logged once when the connection is lost; `reason` is PostgreSQL's or the socket's message, if any. */
  lost(reason: string): string;
  back: string;
}

const SETTINGS_WORDING: ListenerWording = {
  name: 'patchbay settings',
  lost: (reason) => `Lost the settings connection to PostgreSQL${reason}; config, dashboard sign-ins and live events from other replicas wait until it is back.`,
  back: 'The settings connection to PostgreSQL is back; config and sign-ins reloaded.',
};

/**
 * A LISTEN connection: one per replica for the config, the dashboard's sessions and the live
 * events, and one for the keys (core/postgres/postgres-key-store.ts). While it is down (PostgreSQL
 * restarting) the replica answers from what it knows; it reconnects every RECONNECT_MS and then
 * runs each channel's `connected`.
 */
export class PostgresListener {
  private readonly url: string;
  private readonly log: (message: string) => void;
  private readonly wording: ListenerWording;
  private readonly channels = new Map<string, ChannelHandler>();
  private client: pg.Client | null = null;
  private closed = false;
  private down = false;
  private reconnecting = false;

  constructor(url: string, log: (message: string) => void, wording: Partial<ListenerWording> = {}) {
    this.url = url;
    this.log = log;
    this.wording = { ...SETTINGS_WORDING, ...wording };
  }

  /** Adds a channel; call before start(). */
  add(channel: string, handler: ChannelHandler): void {
    this.channels.set(channel, handler);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: this.wording.name });
    client.on('notification', (message) => {
      const handler = this.channels.get(message.channel);
      if (handler && message.payload !== undefined) handler.notify(message.payload);
    });
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.closed) return;
      if (!this.down) this.log(this.wording.lost(error ? ` (${error.message})` : ''));
      this.down = true;
      this.reconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
      // Listening first, then reloading: a change committed in between is both loaded and notified.
      for (const handler of this.channels.values()) await handler.connected();
    } catch (error) {
      lost(error as Error);
      throw error;
    }
  }

  private reconnect(): void {
    if (this.reconnecting || this.closed) return;
    this.reconnecting = true;
    const retry = setTimeout(() => {
      this.reconnecting = false;
      void this.start()
        .then(() => {
          this.down = false;
          this.log(this.wording.back);
        })
        .catch(() => undefined);
    }, RECONNECT_MS);
    retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
