import type { KeyOrder } from '../config/config-schema.ts';

/** One key of a provider that may be sent to its current base URL. */
export interface ProviderKey {
  readonly label: string;
  readonly secret: string;
}

/** Why a key rests: the upstream's answer that sent it to rest. */
export interface KeyFailure {
  status: number;
  message: string;
  /** Until when it rests (epoch ms); Infinity: until the key is set again (a 401). */
  untilMs: number;
}

/**
 * A provider's keys as one attempt at the provider uses them (what the transport sees): which
 * to try in which order, and what each answered.
 */
export interface KeyRing {
  /** The keys to try, in order: the ones not resting (spread rotates the first); all of them, earliest awake first, when every key rests. */
  order(): ProviderKey[];
  /** The key failed in a way another key of the same provider may not (429, quota, 401): it rests. */
  rest(key: ProviderKey, failure: KeyFailure): void;
  served(key: ProviderKey): void;
  /** When the first resting key wakes, or null while a key is free. */
  allRestingUntil(): number | null;
}

/** What the dashboard and `providers list` show of one key: never the secret. */
export interface KeyHealthView {
  resting_until: string | null;
  /** Why it rests: "rate limited (429)", "quota (402)", "rejected (401): rests until the key is set again". */
  rest_reason: string | null;
  last_error: { status: number; message: string; at: string } | null;
  last_used_at: string | null;
  /** Requests this key answered since Patchbay started (the usage rows keep the lasting count, by label). */
  requests_since_start: number;
}

interface KeyState {
  /** The secret the state is about: a key set again (another secret under the label) starts afresh. */
  secret: string;
  restUntil: number;
  restStatus: number;
  lastError: { status: number; message: string; at: number } | null;
  lastUsedAt: number | null;
  served: number;
}

/** Without a retry-after, a rate-limited or out-of-quota key rests this long. */
export const DEFAULT_KEY_REST_MS = 60_000;

/**
 * Per-key health of every provider, in memory: which key rests until when and why, its last
 * error, and the spread turn. A key's state belongs to its secret, so setting a key again (the
 * only cure for a 401) clears it without anyone having to remember to.
 */
export class KeyHealth {
  private readonly states = new Map<string, KeyState>();
  private readonly turns = new Map<string, number>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** The ring one attempt at `provider` uses; `keys` in their configured order (default first, then by label). */
  ring(provider: string, keys: () => ProviderKey[], order: () => KeyOrder): KeyRing {
    return {
      order: () => this.order(provider, keys(), order()),
      rest: (key, failure) => this.rest(provider, key, failure),
      served: (key) => {
        const state = this.stateOf(provider, key);
        state.lastUsedAt = this.now();
        state.served++;
      },
      allRestingUntil: () => {
        const now = this.now();
        let earliest = Number.POSITIVE_INFINITY;
        for (const key of keys()) {
          const until = this.restUntil(provider, key, now);
          if (until === 0) return null;
          earliest = Math.min(earliest, until);
        }
        return earliest;
      },
    };
  }

  view(provider: string, key: ProviderKey): KeyHealthView {
    const state = this.states.get(stateKey(provider, key.label));
    if (!state || state.secret !== key.secret) return { resting_until: null, rest_reason: null, last_error: null, last_used_at: null, requests_since_start: 0 };
    const resting = state.restUntil > this.now();
    return {
      resting_until: resting ? (Number.isFinite(state.restUntil) ? new Date(state.restUntil).toISOString() : 'until the key is set again') : null,
      rest_reason: resting ? restReason(state.restStatus) : null,
      last_error: state.lastError ? { ...state.lastError, at: new Date(state.lastError.at).toISOString() } : null,
      last_used_at: state.lastUsedAt === null ? null : new Date(state.lastUsedAt).toISOString(),
      requests_since_start: state.served,
    };
  }

  private order(provider: string, keys: ProviderKey[], order: KeyOrder): ProviderKey[] {
    if (keys.length <= 1) return keys;
    const now = this.now();
    const free = keys.filter((key) => this.restUntil(provider, key, now) === 0);
    if (free.length === 0) return [...keys].sort((a, b) => this.restUntil(provider, a, now) - this.restUntil(provider, b, now));
    if (order !== 'spread' || free.length === 1) return free;
    // Spread: each attempt starts one key further along, and moves on from there if that key fails.
    const turn = this.turns.get(provider) ?? 0;
    this.turns.set(provider, turn + 1);
    const start = turn % free.length;
    return [...free.slice(start), ...free.slice(0, start)];
  }

  /** 0 when the key is free now, else when it wakes. */
  private restUntil(provider: string, key: ProviderKey, now: number): number {
    const state = this.states.get(stateKey(provider, key.label));
    if (!state || state.secret !== key.secret || state.restUntil <= now) return 0;
    return state.restUntil;
  }

  private rest(provider: string, key: ProviderKey, failure: KeyFailure): void {
    const state = this.stateOf(provider, key);
    state.restUntil = Math.max(failure.untilMs, state.restUntil > this.now() ? state.restUntil : 0);
    state.restStatus = failure.status;
    state.lastError = { status: failure.status, message: failure.message, at: this.now() };
  }

  private stateOf(provider: string, key: ProviderKey): KeyState {
    const id = stateKey(provider, key.label);
    let state = this.states.get(id);
    if (!state || state.secret !== key.secret) {
      state = { secret: key.secret, restUntil: 0, restStatus: 0, lastError: null, lastUsedAt: null, served: 0 };
      this.states.set(id, state);
    }
    return state;
  }
}

function stateKey(provider: string, label: string): string {
  return `${provider}\u0000${label}`;
}

function restReason(status: number): string {
  if (status === 401) return 'rejected (401): rests until the key is set again';
  if (status === 402) return 'out of quota (402)';
  return `rate limited or out of quota (${status})`;
}
