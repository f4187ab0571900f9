import type { AttemptReport } from '../errors/provider-error.ts';

/** A failed attempt as the dashboard shows it. */
export interface LastProviderError {
  at: number;
  model: string;
  status: number;
  error_type: string | null;
  message: string | null;
}

export interface ProviderAttempts {
  attempts: number;
  failures: number;
  lastError: LastProviderError | null;
}

interface AttemptWindow {
  outcomes: { at: number; ok: boolean }[];
  failures: number;
  lastError: LastProviderError | null;
}

/**
 * Every attempt per provider in a sliding window, apart from the endpoints' breaker windows: a
 * provider's error rate and last error on the Overview. It counts what the breakers leave out (the
 * failures a fallback rescued, a provider answering 401 to every request): those are failures of
 * that provider all the same, and the last one is what a user needs to see.
 */
export class ProviderAttemptLog {
  private readonly windows = new Map<string, AttemptWindow>();
  /** The health window's settings, read as they are at each call (the tracker's own object). */
  private readonly settings: { readonly windowSize: number; readonly windowMs: number };
  private readonly clock: () => number;

  constructor(settings: { readonly windowSize: number; readonly windowMs: number }, clock: () => number) {
    this.settings = settings;
    this.clock = clock;
  }

  /** Every attempt of a finished request, as its usage row lists them. Cancelled attempts say nothing about the provider and are left out. */
  record(attempts: readonly AttemptReport[], at: number): void {
    for (const attempt of attempts) {
      if (attempt.error_type === 'cancelled') continue;
      let log = this.windows.get(attempt.provider);
      if (!log) {
        log = { outcomes: [], failures: 0, lastError: null };
        this.windows.set(attempt.provider, log);
      }
      const ok = attempt.status === 200;
      log.outcomes.push({ at, ok });
      if (!ok) {
        log.failures++;
        log.lastError = { at, model: attempt.model, status: attempt.status, error_type: attempt.error_type, message: attempt.message };
      }
      while (log.outcomes.length > this.settings.windowSize) if (!log.outcomes.shift()!.ok) log.failures--;
    }
  }

  /** One provider's attempts in the window: how many, how many failed, and the last failure (kept after the window). */
  read(provider: string): ProviderAttempts {
    const log = this.windows.get(provider);
    if (!log) return { attempts: 0, failures: 0, lastError: null };
    const now = this.clock();
    while (log.outcomes.length > 0 && now - log.outcomes[0].at > this.settings.windowMs) if (!log.outcomes.shift()!.ok) log.failures--;
    return { attempts: log.outcomes.length, failures: log.failures, lastError: log.lastError };
  }
}
