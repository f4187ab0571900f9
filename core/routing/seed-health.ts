import type { RecentAttempts } from '../usage/usage-backend.ts';
import type { HealthTracker } from './health-tracker.ts';

/**
 * Replays the recent attempts recorded in the usage rows (UsageReader.recentAttempts, oldest
 * first) into the health tracker, so latency, success rates and open breakers survive a restart
 * without a table of their own.
 */
export function seedHealth(health: HealthTracker, rows: RecentAttempts[]): void {
  for (const row of rows) {
    for (const attempt of row.attempts) {
      const ok = attempt.status === 200;
      // Cancelled by the client (recorded as 502 by older versions): not the endpoint's doing.
      if (attempt.error_type === 'cancelled') continue;
      // Client errors (4xx other than 429) say nothing about the endpoint's health.
      if (!ok && attempt.status >= 400 && attempt.status < 500 && attempt.status !== 429) continue;
      health.record(`${attempt.provider}/${attempt.model}`, { at: row.ts, ok, latencyMs: attempt.latency_ms, stream: row.stream }, !ok && attempt.status !== 429);
    }
  }
}
