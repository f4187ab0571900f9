// Memory back to the system when Patchbay goes idle. Under load V8 grows the request thread's old
// generation to its working size and keeps freed pages pooled for reuse; left alone, it gives them
// back only when its memory reducer acts, ~100 s after the load stopped (bench/heap-probe.ts). A tray
// app that runs all day is seen in the task manager mostly idle: after IDLE_COLLECT_AFTER_MS without
// a routed request (and none in flight), one memory-reducing full collection runs here, and the
// usage writer thread does the same and shrinks its SQLite cache. Once per idle period: the next
// routed request arms it again. Requests never pay for it beyond one counter increment.
import { collectAllGarbage } from './collect-all-garbage.ts';

/** Quiet time after the last routed request before the idle collection runs. */
export const IDLE_COLLECT_AFTER_MS = 10_000;

/** What GET /api/status reports under `idle_memory`. */
export interface IdleMemoryStats {
  /** Idle collections since start (one per idle period that followed routed requests). */
  collections: number;
  last_at: string | null;
  /** The last collection's pause on the request thread. */
  last_pause_ms: number | null;
  /** Resident memory just before it and a second after it (null during that second). */
  last_rss_before_mb: number | null;
  last_rss_after_mb: number | null;
}

export interface IdleMemoryOptions {
  afterMs?: number;
  /** Resolves when no routed request is in flight (at once when none is). */
  inFlight: () => Promise<void>;
  /** The rest of the process's idle release (the usage writer thread, SQLite's page caches). */
  release: () => void;
  log: (message: string) => void;
}

export class IdleMemory {
  private readonly afterMs: number;
  private readonly options: IdleMemoryOptions;
  /** Routed requests finished since start: the only thing a request does here. */
  private seen = 0;
  private checked = 0;
  /** Checks in a row that found no routed request finished since the one before. */
  private quietChecks = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly current: IdleMemoryStats = { collections: 0, last_at: null, last_pause_ms: null, last_rss_before_mb: null, last_rss_after_mb: null };

  constructor(options: IdleMemoryOptions) {
    this.options = options;
    this.afterMs = options.afterMs ?? IDLE_COLLECT_AFTER_MS;
  }

  /** A routed request finished (its usage row recorded). */
  touch(): void {
    this.seen++;
    if (this.timer === null && !this.closed) this.arm();
  }

  stats(): IdleMemoryStats {
    return { ...this.current };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Looks every half quiet period (requests only bump a counter, so the timer cannot be pushed back
   * by each one): two looks in a row without a finished request, and none in flight, make the app
   * idle, between one and one and a half quiet periods after its last request.
   */
  private arm(): void {
    this.checked = this.seen;
    this.timer = setTimeout(() => void this.check(), this.afterMs / 2);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (this.closed) return;
    // Requests finished since the last look: still busy.
    if (this.seen !== this.checked) {
      this.quietChecks = 0;
      return this.arm();
    }
    if (++this.quietChecks < 2) return this.arm();
    // A long stream may still be running: wait for it, then give a quiet period from its end.
    let waited = false;
    const tick = setImmediate(() => (waited = true));
    await this.options.inFlight();
    clearImmediate(tick);
    if (this.closed) return;
    if (waited || this.seen !== this.checked) {
      this.quietChecks = 0;
      return this.arm();
    }
    this.timer = null;
    this.quietChecks = 0;
    this.collect();
  }

  private collect(): void {
    const before = residentMb();
    const start = performance.now();
    try {
      this.options.release();
      collectAllGarbage();
    } catch (error) {
      this.options.log(`The idle memory release failed: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const pause = performance.now() - start;
    this.current.collections++;
    this.current.last_at = new Date().toISOString();
    this.current.last_pause_ms = Math.round(pause * 10) / 10;
    this.current.last_rss_before_mb = before;
    this.current.last_rss_after_mb = null;
    // V8 unmaps the released pages on a helper thread: read the resident size once they are gone.
    setTimeout(() => (this.current.last_rss_after_mb = residentMb()), 1_000).unref();
  }
}

/** Resident memory in MB (as GET /api/status's memory_mb). */
function residentMb(): number {
  return Math.round(process.memoryUsage.rss() / 1e5) / 10;
}
