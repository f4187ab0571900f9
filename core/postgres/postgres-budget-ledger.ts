import type pg from 'pg';
import { startOfMonth, type BudgetLedger, type BudgetState, type Estimate, type ReserveResult } from '../keys/budget-ledger.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';

/** How often a replica says it is alive, and how long unseen before its reservations are given back. */
export const HEARTBEAT_MS = 2_000;
export const DEAD_AFTER_MS = 10_000;

interface BudgetRow {
  used_tokens: number;
  used_usd: number;
  reserved_tokens: number;
  reserved_usd: number;
}

/**
 * Reserve: one statement. The UPDATE's WHERE holds the cap check, and PostgreSQL re-checks it on
 * the row's newest version after waiting for a concurrent writer's lock (READ COMMITTED's
 * re-evaluation), so two replicas can never both take the last of a cap. The reservation row, with
 * this replica's id, is inserted in the same statement; when the cap refuses, nothing is written
 * and the state is read for the message.
 */
const RESERVE = `WITH b AS (
    UPDATE key_budgets SET reserved_tokens = reserved_tokens + $3, reserved_usd = reserved_usd + $4
     WHERE key_id = $1 AND month = $2
       AND ($5::bigint IS NULL OR used_tokens + reserved_tokens + $3 <= $5)
       AND ($6::double precision IS NULL OR used_usd + reserved_usd + $4 <= $6)
    RETURNING used_tokens, used_usd, reserved_tokens, reserved_usd),
  r AS (INSERT INTO budget_reservations (key_id, month, replica, tokens, usd) SELECT $1, $2, $7, $3, $4 FROM b RETURNING id)
  SELECT r.id, b.* FROM b, r`;

/** Settle: the reservation row goes, its hold leaves the budget and the real cost is added, in one statement. */
const SETTLE = `WITH d AS (DELETE FROM budget_reservations WHERE id = $1 RETURNING key_id, month, tokens, usd)
  UPDATE key_budgets b SET reserved_tokens = b.reserved_tokens - d.tokens, reserved_usd = b.reserved_usd - d.usd,
         used_tokens = b.used_tokens + $2, used_usd = b.used_usd + $3
    FROM d WHERE b.key_id = d.key_id AND b.month = d.month
  RETURNING b.used_tokens, b.used_usd, b.reserved_tokens, b.reserved_usd`;

const RELEASE = `WITH d AS (DELETE FROM budget_reservations WHERE id = $1 RETURNING key_id, month, tokens, usd)
  UPDATE key_budgets b SET reserved_tokens = b.reserved_tokens - d.tokens, reserved_usd = b.reserved_usd - d.usd
    FROM d WHERE b.key_id = d.key_id AND b.month = d.month`;

/** Gives back every hold of the replicas not seen for DEAD_AFTER_MS (and of `replica` itself when given: a clean stop). */
const RELEASE_DEAD = `WITH dead AS (
    DELETE FROM replicas WHERE seen_at < now() - make_interval(secs => $1 / 1000.0) OR id = $2 RETURNING id),
  gone AS (DELETE FROM budget_reservations WHERE replica IN (SELECT id FROM dead) OR replica = $2 RETURNING key_id, month, tokens, usd),
  sums AS (SELECT key_id, month, sum(tokens) AS tokens, sum(usd) AS usd FROM gone GROUP BY 1, 2 ORDER BY 1, 2)
  UPDATE key_budgets b SET reserved_tokens = b.reserved_tokens - sums.tokens, reserved_usd = b.reserved_usd - sums.usd
    FROM sums WHERE b.key_id = sums.key_id AND b.month = sums.month
  RETURNING b.key_id`;

/**
 * The caps in PostgreSQL, shared by every replica: a capped request costs one round trip to
 * reserve and one to settle (the settlement is not awaited by the request). A replica that dies
 * holding reservations stops refreshing its `replicas` row; any other replica (or itself, restarted
 * under a new id) gives its holds back DEAD_AFTER_MS later, so a crash leaks no counter and causes
 * no false 429 beyond that delay.
 */
export class PostgresBudgetLedger implements BudgetLedger {
  private readonly pool: pg.Pool;
  private readonly replica: string;
  private readonly log: (message: string) => void;
  /** Budget rows known to exist (key|month), so the row is created once per key and month. */
  private readonly known = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Settlements and releases still running: close() waits for them. */
  private readonly running = new Set<Promise<unknown>>();
  /** What requests admitted while the database was away used (caps failing open), in order, until written. */
  private readonly charges: { keyId: string; monthStart: number; tokens: number; usd: number }[] = [];
  private charging = false;

  private constructor(pool: pg.Pool, replica: string, log: (message: string) => void) {
    this.pool = pool;
    this.replica = replica;
    this.log = log;
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  static async open(pool: pg.Pool, replica: string, log: (message: string) => void): Promise<PostgresBudgetLedger> {
    await pool.query('INSERT INTO replicas (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()', [replica]);
    const ledger = new PostgresBudgetLedger(pool, replica, log);
    await ledger.releaseDead();
    return ledger;
  }

  private async beat(): Promise<void> {
    try {
      await this.pool.query('INSERT INTO replicas (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()', [this.replica]);
      await this.releaseDead();
    } catch {
      // The database is away: the next beat tries again (the pool logs nothing; the usage sink says so).
    }
  }

  /** Gives back the holds of replicas not seen for DEAD_AFTER_MS. Returns how many budgets changed. */
  async releaseDead(self: string | null = null): Promise<number> {
    const result = await this.pool.query(RELEASE_DEAD, [DEAD_AFTER_MS, self]);
    if (result.rowCount && self === null) this.log(`Released the cap reservations of a replica not seen for ${DEAD_AFTER_MS / 1000} s (${result.rowCount} key budgets).`);
    return result.rowCount ?? 0;
  }

  private async ensureBudget(keyId: string, monthStart: number): Promise<void> {
    const known = `${keyId}|${monthStart}`;
    if (this.known.has(known)) return;
    // The month's settled usage as the usage rows have it, the first time any replica sees this key this month.
    await this.pool.query(
      `INSERT INTO key_budgets (key_id, month, used_tokens, used_usd)
       SELECT $1, $2, coalesce(sum(total_tokens), 0), coalesce(sum(cost_usd), 0) FROM usage WHERE key_id = $1 AND ts >= $2 AND ts < $3
       ON CONFLICT (key_id, month) DO NOTHING`,
      [keyId, monthStart, startOfMonth(monthStart, 1)],
    );
    this.known.add(known);
  }

  async reserve(key: ApiKeyRecord, estimate: Estimate, now: number): Promise<ReserveResult> {
    const monthStart = startOfMonth(now);
    await this.ensureBudget(key.id, monthStart);
    const taken = await this.pool.query<BudgetRow & { id: string }>(RESERVE, [
      key.id, monthStart, estimate.tokens, estimate.costUsd, key.monthlyTokenCap, key.monthlyUsdCap, this.replica,
    ]);
    if (taken.rows.length === 0) {
      const row = (await this.pool.query<BudgetRow>('SELECT used_tokens, used_usd, reserved_tokens, reserved_usd FROM key_budgets WHERE key_id = $1 AND month = $2', [key.id, monthStart])).rows[0];
      const state = toState(monthStart, row);
      const cap = key.monthlyTokenCap !== null && state.usedTokens + state.reservedTokens + estimate.tokens > key.monthlyTokenCap ? 'tokens' : 'usd';
      return { ok: false, cap, state };
    }
    const { id, ...row } = taken.rows[0];
    const pool = this.pool;
    const log = this.log;
    const track = (promise: Promise<unknown>) => {
      this.running.add(promise);
      void promise.finally(() => this.running.delete(promise));
    };
    let done = false;
    return {
      ok: true,
      state: toState(monthStart, row),
      reservation: {
        settle(actual, onSettled) {
          if (done) return;
          done = true;
          track(pool
            .query<BudgetRow>(SETTLE, [id, actual.tokens, actual.costUsd])
            .then(async (result) => {
              // Given back already (this replica was presumed dead): the cost still counts.
              if (result.rows.length === 0) {
                result = await pool.query<BudgetRow>(
                  'UPDATE key_budgets SET used_tokens = used_tokens + $3, used_usd = used_usd + $4 WHERE key_id = $1 AND month = $2 RETURNING used_tokens, used_usd, reserved_tokens, reserved_usd',
                  [key.id, monthStart, actual.tokens, actual.costUsd],
                );
              }
              if (onSettled && result.rows[0]) onSettled(toState(monthStart, result.rows[0]));
            })
            .catch((error: Error) => log(`Could not settle a cap reservation of ${key.id} (${error.message}); it is given back when this replica stops.`)));
        },
        release() {
          if (done) return;
          done = true;
          track(pool.query(RELEASE, [id]).catch((error: Error) => log(`Could not release a cap reservation of ${key.id} (${error.message}).`)));
        },
      },
    };
  }

  charge(key: ApiKeyRecord, actual: Estimate, monthStart: number): void {
    this.charges.push({ keyId: key.id, monthStart, tokens: actual.tokens, usd: actual.costUsd });
    void this.writeCharges();
  }

  /**
   * Adds the charges to budgets that exist; a budget created later sums the month's usage rows,
   * which hold these requests already. Retried every second while the database is away.
   */
  private async writeCharges(): Promise<void> {
    if (this.charging) return;
    this.charging = true;
    try {
      while (this.charges.length) {
        const charge = this.charges[0];
        await this.pool.query('UPDATE key_budgets SET used_tokens = used_tokens + $3, used_usd = used_usd + $4 WHERE key_id = $1 AND month = $2', [
          charge.keyId, charge.monthStart, charge.tokens, charge.usd,
        ]);
        this.charges.shift();
      }
    } catch {
      setTimeout(() => void this.writeCharges(), 1_000).unref();
    } finally {
      this.charging = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.writeCharges();
    await Promise.all(this.running);
    // A clean stop: this replica's row and any hold it still has go now, not DEAD_AFTER_MS later.
    await this.releaseDead(this.replica).catch(() => undefined);
  }
}

function toState(monthStart: number, row: BudgetRow | undefined): BudgetState {
  return {
    monthStart,
    usedTokens: row?.used_tokens ?? 0,
    usedUsd: row?.used_usd ?? 0,
    reservedTokens: row?.reserved_tokens ?? 0,
    reservedUsd: row?.reserved_usd ?? 0,
  };
}
