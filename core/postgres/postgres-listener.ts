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

/**
 * One LISTEN connection per replica for the config, the dashboard's sessions and the live events.
 * While it is down (PostgreSQL restarting) the replica answers from what it knows; it reconnects
 * every RECONNECT_MS and then runs each channel's `connected`.
 */
export class PostgresListener {
  private readonly url: string;
  private readonly log: (message: string) => void;
  private readonly name: string;
  private readonly channels = new Map<string, ChannelHandler>();
  private client: pg.Client | null = null;
  private closed = false;
  private down = false;
  private reconnecting = false;

  /** `name`: the connection's application_name (pg_stat_activity shows whose it is). */
  constructor(url: string, log: (message: string) => void, name = 'patchbay settings') {
    this.url = url;
    this.log = log;
    this.name = name;
  }

  /** Adds a channel; call before start(). */
  add(channel: string, handler: ChannelHandler): void {
    this.channels.set(channel, handler);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: this.name });
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
      if (!this.down) this.log(`Lost the settings connection to PostgreSQL${error ? ` (${error.message})` : ''}; config, dashboard sign-ins and live events from other replicas wait until it is back.`);
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
          this.log('The settings connection to PostgreSQL is back; config and sign-ins reloaded.');
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
