/** Where one session (or prompt prefix) went for one model, and when it last did. */
export interface StickyEntry {
  endpoint: string;
  /** Wall-clock ms of the session's first and latest answer from this endpoint. */
  since: number;
  lastUsed: number;
  /** Answers from this endpoint in a row. */
  turns: number;
}

/** Sessions remembered at most; past it the least recently used is forgotten first. */
export const STICKY_MAX_ENTRIES = 10_000;

/**
 * Sticky routing's memory: session and model -> the endpoint that last answered. A Map keeps
 * insertion order, so re-inserting on each use makes its first key the least recently used: an
 * LRU without a list. Entries idle longer than `idleMs` count as absent and are dropped when met.
 * The planner only reads it (`peek`); the executor writes it after an answer.
 */
export class StickyMemory {
  private readonly entries = new Map<string, StickyEntry>();
  private readonly maxEntries: number;
  /** The key set last (the Map's last key, while it is in the Map). */
  private newest: string | null = null;
  idleMs: number;

  constructor(idleMs: number, maxEntries = STICKY_MAX_ENTRIES) {
    this.idleMs = idleMs;
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry if it is still live at `now`; reading does not refresh it. */
  peek(key: string, now: number): StickyEntry | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (now - entry.lastUsed > this.idleMs) {
      this.entries.delete(key);
      return null;
    }
    return entry;
  }

  /** The endpoint answered the session: it stays there (or moves there, after a failure elsewhere). */
  remember(key: string, endpoint: string, now: number): void {
    const entry = this.entries.get(key);
    const kept = entry && entry.endpoint === endpoint && now - entry.lastUsed <= this.idleMs;
    const next = kept ? { endpoint, since: entry.since, lastUsed: now, turns: entry.turns + 1 } : { endpoint, since: now, lastUsed: now, turns: 1 };
    // The most recently used key is already last: set in place. Deleting and re-inserting it left a
    // deleted slot in the Map per request (a rehash every few hundred) on the hot path of one session.
    if (key === this.newest && entry) {
      this.entries.set(key, next);
      return;
    }
    this.entries.delete(key);
    this.entries.set(key, next);
    this.newest = key;
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The endpoint failed the session: the next pick is the strategy's again. */
  forget(key: string, endpoint: string): void {
    if (this.entries.get(key)?.endpoint === endpoint) this.entries.delete(key);
  }

  /** Forgets every entry whose key starts with `prefix` (a session's, whatever the model); returns how many. Walks the map: for rare events only. */
  forgetPrefix(prefix: string): number {
    let forgotten = 0;
    for (const key of this.entries.keys()) {
      if (!key.startsWith(prefix)) continue;
      this.entries.delete(key);
      if (key === this.newest) this.newest = null;
      forgotten++;
    }
    return forgotten;
  }

  clear(): void {
    this.entries.clear();
  }
}
