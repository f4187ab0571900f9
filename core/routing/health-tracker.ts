import type { AttemptReport } from '../errors/provider-error.ts';
import { ProviderAttemptLog, type LastProviderError, type ProviderAttempts } from './provider-attempt-log.ts';
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

/**
 * One endpoint's window, kept ready to read: outcomes oldest first, the count of successes and the
 * successful latencies in sorted order (JSON and streams apart), each updated as an outcome enters
 * or leaves the window. Reading the health of a busy endpoint then allocates and sorts nothing.
 */
interface EndpointRecord {
  outcomes: Outcome[];
  successes: number;
  latencies: number[];
  firstBytes: number[];
  breaker: Breaker;
  rateLimitedUntil: number | null;
  /** Not a catalog endpoint (a pass-through id such as `ollama/anything`): its entry expires. */
  passThrough: boolean;
  /** When it was last recorded or marked (pass-through entries expire from this). */
  touchedAt: number;
}

/**
 * Pass-through ids kept at most, the most recently used. Any model id a user-defined provider
 * serves is passed through, so their number is the callers' choice: without a bound, 20,000
 * distinct ids left 20,000 entries forever.
 */
export const MAX_PASS_THROUGH_ENDPOINTS = 1000;

/**
 * Live health per endpoint in a sliding window, plus its circuit breaker. Seeded at start from the
 * usage table (every attempt is recorded there), so it survives restarts without a table of its own.
 * Catalog endpoints keep their entry; a pass-through id's entry is dropped once nothing of it is
 * left to remember (its window is over, no breaker cooldown or rate-limit window running), and
 * beyond MAX_PASS_THROUGH_ENDPOINTS the least recently used goes first.
 */
export class HealthTracker {
  private readonly endpoints = new Map<string, EndpointRecord>();
  /** Pass-through entries, least recently used first (a Map keeps insertion order; a touch re-inserts). */
  private readonly passThrough = new Map<string, EndpointRecord>();
  private readonly settings: HealthSettings;
  private readonly clock: () => number;
  private readonly inCatalog: (id: string) => boolean;
  /** Every attempt per provider (see recordAttempts), apart from the breakers' windows. */
  private readonly attemptLog: ProviderAttemptLog;
  /** Told when an endpoint's breaker changes state (the dashboard's live `breaker` event). */
  onBreakerChange: ((endpointId: string, state: BreakerState, at: number) => void) | null = null;

  /** `inCatalog` tells catalog endpoints (kept) from pass-through ids (expiring); without it every entry is kept. */
  constructor(settings: HealthSettings, clock: () => number = Date.now, inCatalog: (id: string) => boolean = () => true) {
    this.settings = settings;
    this.clock = clock;
    this.inCatalog = inCatalog;
    this.attemptLog = new ProviderAttemptLog(settings, clock);
  }

  private entry(id: string): EndpointRecord {
    let record = this.endpoints.get(id);
    if (!record) {
      record = { outcomes: [], successes: 0, latencies: [], firstBytes: [], breaker: createBreaker(), rateLimitedUntil: null, passThrough: !this.inCatalog(id), touchedAt: 0 };
      this.endpoints.set(id, record);
    }
    // Catalog endpoints pay one branch here; pass-through ones their bookkeeping.
    if (record.passThrough) this.touch(id, record);
    return record;
  }

  /** Marks a pass-through entry most recently used, then drops the expired and any beyond the cap. */
  private touch(id: string, record: EndpointRecord): void {
    const now = this.clock();
    record.touchedAt = now;
    this.passThrough.delete(id);
    this.passThrough.set(id, record);
    for (const [oldId, old] of this.passThrough) {
      if (this.passThrough.size <= MAX_PASS_THROUGH_ENDPOINTS && !this.expired(old, now)) break;
      this.passThrough.delete(oldId);
      this.endpoints.delete(oldId);
    }
  }

  /** Nothing of the entry counts any more: its last outcome is out of the window, no cooldown or rate-limit window runs. */
  private expired(record: EndpointRecord, now: number): boolean {
    if (now - record.touchedAt <= this.settings.windowMs) return false;
    if (record.rateLimitedUntil !== null && record.rateLimitedUntil > now) return false;
    return currentState(record.breaker, this.settings, now) === 'closed';
  }

  record(id: string, outcome: Outcome, countsAgainstBreaker = !outcome.ok): void {
    const record = this.entry(id);
    const before = record.breaker.state;
    record.outcomes.push(outcome);
    count(record, outcome, 1);
    while (record.outcomes.length > this.settings.windowSize) count(record, record.outcomes.shift()!, -1);
    if (outcome.ok) recordSuccess(record.breaker);
    else if (countsAgainstBreaker) recordFailure(record.breaker, this.settings, outcome.at);
    // A failure that does not count (a 429) ends a half-open probe without deciding it: free the slot for the next one.
    else record.breaker.probing = false;
    if (record.breaker.state !== before) this.onBreakerChange?.(id, record.breaker.state, outcome.at);
  }

  /** Every attempt of a finished request, as its usage row lists them (a provider's error rate and last error: provider-attempt-log.ts). */
  recordAttempts(attempts: readonly AttemptReport[], at: number): void {
    this.attemptLog.record(attempts, at);
  }

  /** One provider's attempts in the health window: how many, how many failed, and the last failure (kept after the window). */
  providerAttempts(provider: string): ProviderAttempts {
    return this.attemptLog.read(provider);
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
    const before = record.breaker.state;
    const admitted = admit(record.breaker, this.settings, now, claimProbe);
    if (record.breaker.state !== before) this.onBreakerChange?.(id, record.breaker.state, now);
    return admitted;
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
    // Outcomes that have aged out of the window leave it (they are oldest first).
    const outcomes = record.outcomes;
    while (outcomes.length > 0 && now - outcomes[0].at > this.settings.windowMs) count(record, outcomes.shift()!, -1);
    const samples = outcomes.length;
    const successes = record.successes;
    const before = record.breaker.state;
    const breaker = currentState(record.breaker, this.settings, now);
    if (breaker !== before) this.onBreakerChange?.(id, breaker, now);
    return {
      samples,
      successes,
      successRate: (successes + 1) / (samples + 2),
      latencyP50: median(record.latencies),
      firstByteP50: median(record.firstBytes),
      breaker,
      rateLimitedUntil: record.rateLimitedUntil !== null && record.rateLimitedUntil > now ? record.rateLimitedUntil : null,
    };
  }

  endpointIds(): IterableIterator<string> {
    return this.endpoints.keys();
  }

  /** The successful latencies in the window (JSON answers and streams' first chunks), unsorted. */
  latencies(id: string): number[] {
    const record = this.endpoints.get(id);
    return record ? [...record.latencies, ...record.firstBytes] : [];
  }

  /** Every endpoint with history, for the status endpoint and the dashboard. */
  snapshot(): Record<string, EndpointHealth & { consecutiveFailures: number }> {
    const out: Record<string, EndpointHealth & { consecutiveFailures: number }> = {};
    for (const [id, record] of this.endpoints) out[id] = { ...this.health(id), consecutiveFailures: record.breaker.consecutiveFailures };
    return out;
  }
}

/**
 * One provider's window across its endpoints (ids "provider/model"), for the status page: samples,
 * error rate (over every attempt, see recordAttempts), the median of every successful latency (time to first chunk for streams), and the
 * worst breaker state among its endpoints.
 */
export function summarizeProvider(
  tracker: HealthTracker,
  provider: string,
): { samples: number; errorRate: number | null; latencyP50: number | null; breaker: BreakerState; lastError: LastProviderError | null } {
  const prefix = `${provider}/`;
  let samples = 0;
  let successes = 0;
  let breaker: BreakerState = 'closed';
  const latencies: number[] = [];
  for (const id of tracker.endpointIds()) {
    if (!id.startsWith(prefix)) continue;
    const health = tracker.health(id);
    samples += health.samples;
    successes += health.successes;
    if (health.breaker === 'open' || (health.breaker === 'half-open' && breaker === 'closed')) breaker = health.breaker;
    latencies.push(...tracker.latencies(id));
  }
  latencies.sort((a, b) => a - b);
  // The error rate counts every attempt (recordAttempts); the breakers' windows leave out what does not trip them.
  const attempts = tracker.providerAttempts(provider);
  if (attempts.attempts > 0) return { samples: attempts.attempts, errorRate: attempts.failures / attempts.attempts, latencyP50: median(latencies), breaker, lastError: attempts.lastError };
  return { samples, errorRate: samples ? (samples - successes) / samples : null, latencyP50: median(latencies), breaker, lastError: attempts.lastError };
}

/** Adds (+1) or removes (-1) one outcome's share of the window's running figures. */
function count(record: EndpointRecord, outcome: Outcome, sign: 1 | -1): void {
  if (!outcome.ok) return;
  record.successes += sign;
  // A latency that is not a number (a malformed seeded row) counts as a success but not as a latency.
  if (!Number.isFinite(outcome.latencyMs)) return;
  const sorted = outcome.stream ? record.firstBytes : record.latencies;
  const at = lowerBound(sorted, outcome.latencyMs);
  if (sign === 1) sorted.splice(at, 0, outcome.latencyMs);
  else sorted.splice(at, 1);
}

/** First index whose value is not below `value`, in an ascending array. */
function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The median of an ascending array, or null when empty. */
function median(sorted: number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
