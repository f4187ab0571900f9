import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import { prepareRollups } from './usage-rollups.ts';
import type { ContentEntry, UsageRecord } from './usage-record.ts';

/** One usage row as the INSERT takes it: 34 values in column order (attempts as JSON text). */
export type RowValues = (string | number | null)[];

/** Rows as they go to the writer thread: JSON, one string per ROWS_PER_STRING rows. */
export type RowsJson = string[];
/**
 * A string over 128 KB (~250 rows of the bench's traffic; a batch holds up to 500) is allocated in
 * V8's large-object space, which only a full collection frees. The writer thread, with ~4 MB live,
 * gets few of those: 240 s at 16 in flight left 7.3 MB of spent batches there
 * (bench/heap-probe.ts). Strings of 64 rows (~40 KB, under 128 KB up to ~2 KB a row) die young.
 */
const ROWS_PER_STRING = 64;

export function rowsToJson(rows: RowValues[]): RowsJson {
  if (rows.length <= ROWS_PER_STRING) return [JSON.stringify(rows)];
  const parts: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STRING) parts.push(JSON.stringify(rows.slice(i, i + ROWS_PER_STRING)));
  return parts;
}

export function rowsFromJson(parts: RowsJson): RowValues[] {
  return parts.length === 1 ? (JSON.parse(parts[0]) as RowValues[]) : parts.flatMap((part) => JSON.parse(part) as RowValues[]);
}

const COLUMNS = `ts, request_id, key_id, endpoint, requested_model, provider, model, strategy, status, error_type,
  stream, prompt_tokens, completion_tokens, total_tokens, input_price, output_price, cost_usd, latency_ms, first_byte_ms, attempts, route_reason,
  cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, adjustments, provider_key,
  session_id, session_source, agent_id, parent_agent_id, cache_saved_usd, error_message, fallback, price_unknown, request_class`;
const RETRY_AFTER_FAILURE_MS = 1000;
/** Rows kept in memory while the database refuses writes (about 50 MB at most). */
const MAX_PENDING_ROWS = 100_000;

/**
 * usage_writers: the last batch each usage writer thread committed, written in the same transaction
 * as its rows (see UsageWriteQueue). The thread records and removes its row; the server reads it when the
 * thread died, and removes it then.
 */
export const usageWriters = {
  /** A statement recording that the writer `token` holds every batch up to `seq`. */
  prepareMark: (db: PatchbayDatabase) => db.prepare<[string, number]>('INSERT OR REPLACE INTO usage_writers (token, seq) VALUES (?, ?)'),
  /** The last batch the writer committed (0 when it committed none). */
  committed: (db: PatchbayDatabase, token: string): number => (db.prepare('SELECT seq FROM usage_writers WHERE token = ?').pluck().get(token) as number | undefined) ?? 0,
  forget: (db: PatchbayDatabase, token: string): void => {
    db.prepare('DELETE FROM usage_writers WHERE token = ?').run(token);
  },
};

export function toRowValues(r: UsageRecord): RowValues {
  return [
    r.ts, r.requestId, r.keyId, r.endpoint, r.requestedModel, r.provider, r.model, r.strategy, r.status, r.errorType,
    r.stream ? 1 : 0, r.promptTokens, r.completionTokens, r.totalTokens, r.inputPrice, r.outputPrice, r.costUsd, r.latencyMs, r.firstByteMs,
    JSON.stringify(r.attempts), r.routeReason ?? null,
    r.cacheReadTokens ?? 0, r.cacheWrite5mTokens ?? 0, r.cacheWrite1hTokens ?? 0, r.reasoningTokens ?? 0,
    r.adjustments ? JSON.stringify(r.adjustments) : null,
    r.providerKey ?? null,
    r.sessionId ?? null, r.sessionSource ?? null, r.agentId ?? null, r.parentAgentId ?? null, r.cacheSavedUsd ?? 0,
    r.errorMessage ?? null, r.fallback ? 1 : 0, r.priceUnknown ? 1 : 0, r.requestClass ?? null,
  ];
}

/**
 * Commits usage rows in batches, in order, one transaction each. A batch the database refuses
 * (locked, full) is kept with everything after it and retried every second, so a fault loses no
 * row and never reaches the request path. Runs on the main thread (CLI, tests) or in the usage
 * writer thread (the server), with the same behaviour.
 */
export class UsageBatchWriter {
  private rows: RowValues[] = [];
  private content: ContentEntry[] = [];
  private failing = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly commit: (rows: RowValues[], content: ContentEntry[]) => void;
  private readonly log: (message: string) => void;
  /** Called after every successful commit with nothing left pending. */
  private readonly onDrained: () => void;

  /** `inTransaction` runs inside each commit's transaction, after the rows (the writer thread records its batch number there). */
  constructor(db: PatchbayDatabase, log: (message: string) => void, onDrained: () => void = () => undefined, inTransaction: () => void = () => undefined) {
    this.log = log;
    this.onDrained = onDrained;
    const insert = db.prepare(`INSERT INTO usage (${COLUMNS}) VALUES (${COLUMNS.split(',').map(() => '?').join(', ')})`);
    const insertContent = db.prepare('INSERT OR REPLACE INTO content_log (request_id, ts, request, response) VALUES (@requestId, @ts, @request, @response)');
    const rollups = prepareRollups(db);
    const transaction = db.transaction((rows: RowValues[], content: ContentEntry[]) => {
      if (rows.length) {
        // The rollups are updated from the rows this transaction inserted: those with a higher id.
        const lastId = rollups.lastId();
        for (const row of rows) insert.run(row);
        rollups.addAfter(lastId);
      }
      for (const entry of content) insertContent.run(entry);
      inTransaction();
    });
    // BEGIN IMMEDIATE: the write lock is taken first, where busy_timeout waits for another
    // connection's write. A deferred transaction began as a read (the rollups' last id), and its first
    // INSERT failed at once with "database is locked" when another write committed meanwhile (its
    // snapshot was stale): the rows waited a second for the retry, and a flushed read missed them.
    this.commit = (rows, content) => transaction.immediate(rows, content);
  }

  /** Whether the last attempt failed (rows are being kept and retried). */
  get isFailing(): boolean {
    return this.failing;
  }

  /** Adds a batch and commits everything pending, unless a retry is already scheduled. */
  write(rows: RowValues[], content: ContentEntry[] = []): void {
    if (rows.length) this.rows = this.rows.length ? this.rows.concat(rows) : rows;
    if (content.length) this.content = this.content.concat(content);
    if (!this.retry) this.tryCommit();
  }

  /** Commits now, even while a retry is scheduled (shutdown, reads that need every row). */
  flush(): void {
    this.tryCommit();
  }

  private tryCommit(): void {
    if (this.retry) {
      clearTimeout(this.retry);
      this.retry = null;
    }
    if (this.rows.length === 0 && this.content.length === 0) return;
    const rows = this.rows;
    const content = this.content;
    try {
      this.commit(rows, content);
      this.rows = [];
      this.content = [];
      if (this.failing) this.log(`Usage rows are being saved again (${rows.length} written).`);
      this.failing = false;
      this.onDrained();
    } catch (error) {
      if (this.rows.length > MAX_PENDING_ROWS) {
        const dropped = this.rows.length - MAX_PENDING_ROWS;
        this.rows = this.rows.slice(dropped);
        this.log(`Dropped the ${dropped} oldest unsaved usage rows: the database has refused writes for too long.`);
      }
      if (!this.failing) this.log(`Cannot save usage rows yet (${(error as Error).message}); ${this.rows.length} kept in memory, retrying every ${RETRY_AFTER_FAILURE_MS / 1000} s.`);
      this.failing = true;
      this.retry = setTimeout(() => this.tryCommit(), RETRY_AFTER_FAILURE_MS);
      this.retry.unref();
    }
  }
}
