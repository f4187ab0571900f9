import { admit, createBreaker, currentState, recordFailure, recordSuccess, type Breaker, type BreakerSettings, type BreakerState } from './circuit-breaker.ts';

export interface HealthSettings extends BreakerSettings {
  /** Outcomes kept per endpoint. */
  windowSize: number;
  /** Outcomes older than this no longer count. */
  windowMs: number;
}

export interface Outcome {
  at: number;
  ok: boolean;
  /** Milliseconds to the full answer (JSON) or to the first chunk (streams). */
  latencyMs: number;
  stream: boolean;
}

/** What strategies read about one endpoint. Medians are null when the window has no such sample. */
export interface EndpointHealth {
  samples: number;
  successes: number;
  /** Success rate with one imagined success and one failure added (Laplace), so a new endpoint starts at 0.5+ and is not starved. */
  successRate: number;
  latencyP50: number | null;
  firstByteP50: number | null;
  breaker: BreakerState;
  rateLimitedUntil: number | null;
}

interface EndpointRecord {
  outcomes: Outcome[];
  breaker: Breaker;
  rateLimitedUntil: number | null;
  /** Window statistics, recomputed only after a new outcome or once a second (for expiry). */
  stats: { at: number; samples: number; successes: number; latencyP50: number | null; firstByteP50: number | null } | null;
}

const STATS_MAX_AGE_MS = 1000;

/**
 * Live health per endpoint in a sliding window, plus its circuit breaker. Seeded at start from the
 * usage table (every attempt is recorded there), so it survives restarts without a table of its own.
 */
export class HealthTracker {
  private readonly endpoints = new Map<string, EndpointRecord>();
  private readonly settings: HealthSettings;
  private readonly clock: () => number;

  constructor(settings: HealthSettings, clock: () => number = Date.now) {
    this.settings = settings;
    this.clock = clock;
  }

  private entry(id: string): EndpointRecord {
    let record = this.endpoints.get(id);
    if (!record) {
      record = { outcomes: [], breaker: createBreaker(), rateLimitedUntil: null, stats: null };
      this.endpoints.set(id, record);
    }
    return record;
  }

  record(id: string, outcome: Outcome, countsAgainstBreaker = !outcome.ok): void {
    const record = this.entry(id);
    record.outcomes.push(outcome);
    record.stats = null;
    if (record.outcomes.length > this.settings.windowSize) record.outcomes.splice(0, record.outcomes.length - this.settings.windowSize);
    if (outcome.ok) recordSuccess(record.breaker);
    else if (countsAgainstBreaker) recordFailure(record.breaker, this.settings, outcome.at);
    // A failure that does not count (a 429) ends a half-open probe without deciding it: free the slot for the next one.
    else record.breaker.probing = false;
  }

  /** A 429 with a retry window: skip the endpoint until the window ends. */
  markRateLimited(id: string, untilMs: number): void {
    this.entry(id).rateLimitedUntil = untilMs;
  }

  /** Whether the endpoint may be tried now; `claimProbe` reserves the half-open probe for this request. */
  isAvailable(id: string, claimProbe = false): boolean {
    const record = this.endpoints.get(id);
    if (!record) return true;
    const now = this.clock();
    if (record.rateLimitedUntil !== null && record.rateLimitedUntil > now) return false;
    return admit(record.breaker, this.settings, now, claimProbe);
  }

  /** Gives back a probe slot that was claimed but not used (the request went elsewhere). */
  releaseProbe(id: string): void {
    const record = this.endpoints.get(id);
    if (record) record.breaker.probing = false;
  }

  health(id: string): EndpointHealth {
    const record = this.endpoints.get(id);
    const now = this.clock();
    if (!record) return { samples: 0, successes: 0, successRate: 0.5, latencyP50: null, firstByteP50: null, breaker: 'closed', rateLimitedUntil: null };
    if (!record.stats || now - record.stats.at > STATS_MAX_AGE_MS) {
      const recent = record.outcomes.filter((o) => now - o.at <= this.settings.windowMs);
      record.stats = {
        at: now,
        samples: recent.length,
        successes: recent.filter((o) => o.ok).length,
        latencyP50: median(recent.filter((o) => o.ok && !o.stream).map((o) => o.latencyMs)),
        firstByteP50: median(recent.filter((o) => o.ok && o.stream).map((o) => o.latencyMs)),
      };
    }
    const { samples, successes, latencyP50, firstByteP50 } = record.stats;
    return {
      samples,
      successes,
      successRate: (successes + 1) / (samples + 2),
      latencyP50,
      firstByteP50,
      breaker: currentState(record.breaker, this.settings, now),
      rateLimitedUntil: record.rateLimitedUntil !== null && record.rateLimitedUntil > now ? record.rateLimitedUntil : null,
    };
  }

  /** Every endpoint with history, for the status endpoint and the dashboard. */
  snapshot(): Record<string, EndpointHealth & { consecutiveFailures: number }> {
    const out: Record<string, EndpointHealth & { consecutiveFailures: number }> = {};
    for (const [id, record] of this.endpoints) out[id] = { ...this.health(id), consecutiveFailures: record.breaker.consecutiveFailures };
    return out;
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
