import type { AttemptReport } from '../errors/provider-error.ts';
import type { PatchbayDatabase } from '../usage/open-database.ts';
import type { HealthTracker } from './health-tracker.ts';

/**
 * Replays the recent attempts recorded in the usage table into the health tracker, so latency,
 * success rates and open breakers survive a restart without a table of their own.
 */
export function seedHealth(health: HealthTracker, db: PatchbayDatabase, windowMs: number, now = Date.now()): void {
  const rows = db
    .prepare('SELECT ts, stream, attempts FROM usage WHERE ts >= ? ORDER BY id DESC LIMIT 5000')
    .all(now - windowMs) as { ts: number; stream: number; attempts: string }[];
  for (const row of rows.reverse()) {
    const attempts = JSON.parse(row.attempts) as AttemptReport[];
    health.recordAttempts(attempts, row.ts);
    for (const attempt of attempts) {
      const ok = attempt.status === 200;
      // Cancelled by the client (recorded as 502 by older versions): not the endpoint's doing.
      if (attempt.error_type === 'cancelled') continue;
      // Client errors (4xx other than 429) say nothing about the endpoint's health.
      if (!ok && attempt.status >= 400 && attempt.status < 500 && attempt.status !== 429) continue;
      health.record(`${attempt.provider}/${attempt.model}`, { at: row.ts, ok, latencyMs: attempt.latency_ms, stream: row.stream === 1 }, !ok && attempt.status !== 429);
    }
  }
}
