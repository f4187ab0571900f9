import type pg from 'pg';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import type { SharedRateResult, SharedRateWindows } from '../keys/shared-rate-windows.ts';

const SWEEP_MS = 60_000;
const SWEEP = 'DELETE FROM key_rate_buckets WHERE second < floor(extract(epoch FROM clock_timestamp()))::bigint - 60';

interface AdmitRow {
  admitted: boolean;
  second: number;
  used_requests: number;
  used_tokens: number;
  retry_ms: number;
}

/**
 * Rate limits held across replicas: per key, one-second buckets in `key_rate_buckets`, and one
 * function call (`patchbay_rate_admit`, migration 4) that takes a per-key advisory lock, sums the
 * last 61 buckets and adds the request only if it fits. The lock makes the check-then-add atomic
 * across replicas, and the database's clock places every replica's requests on one time line.
 * A request counts for 60 to 61 s, so no 60 s span ever holds more than the limit; the price is that
 * a slot comes back up to one second later than an exact sliding log would give it.
 */
export class PostgresRateWindows implements SharedRateWindows {
  private readonly pool: pg.Pool;
  private readonly log: (message: string) => void;
  private readonly running = new Set<Promise<unknown>>();
  /** Per key, the last admission this replica sent: the next waits for it (see `admit`). */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(pool: pg.Pool, log: (message: string) => void) {
    this.pool = pool;
    this.log = log;
    // Each admission drops its own key's old buckets; this drops those of keys that went quiet.
    this.sweeper = setInterval(() => void this.pool.query(SWEEP).catch(() => undefined), SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * One admission per key at a time from this replica: a burst on one key waits here, not on the
   * key's advisory lock holding a pool connection each, so other keys' caps, windows and usage
   * rows keep their connections. At most one connection per replica waits on a key's lock.
   */
  admit(key: ApiKeyRecord, tokens: number): Promise<SharedRateResult> {
    const previous = this.queues.get(key.id);
    const run = previous ? previous.then(() => this.admitNow(key, tokens)) : this.admitNow(key, tokens);
    const settled = run.catch(() => undefined);
    this.queues.set(key.id, settled);
    void settled.then(() => {
      if (this.queues.get(key.id) === settled) this.queues.delete(key.id);
    });
    return run;
  }

  private async admitNow(key: ApiKeyRecord, tokens: number): Promise<SharedRateResult> {
    const { rows } = await this.pool.query<AdmitRow>('SELECT * FROM patchbay_rate_admit($1, $2, $3, $4)', [key.id, key.rpmLimit, key.tpmLimit, tokens]);
    const row = rows[0];
    return { admitted: row.admitted, requests: row.used_requests, tokens: row.used_tokens, retryMs: Math.max(0, row.retry_ms), bucket: row.second };
  }

  adjust(key: ApiKeyRecord, bucket: number, deltaTokens: number): void {
    if (deltaTokens === 0) return;
    const done = this.pool
      .query('UPDATE key_rate_buckets SET tokens = greatest(0, tokens + $3) WHERE key_id = $1 AND second = $2', [key.id, bucket, deltaTokens])
      .catch((error: Error) => this.log(`Could not settle a token-rate window of ${key.id} (${error.message}); it holds the estimate until it leaves the minute.`))
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.running);
  }
}
