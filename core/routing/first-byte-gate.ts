import { ProviderError } from '../errors/provider-error.ts';
import { describeFallback, servedByFallback } from './describe-route.ts';
import type { CommittedAnswer, RouteTrace } from './route-trace.ts';

/**
 * The one place that knows whether a request can still fall back: until its first byte reaches
 * the client it can (the executor tries the next candidate); once `pass` is called the answer is
 * committed, and a failure after it travels inside the stream. `failAfterFirstByte` is what the
 * stream path calls then: the attempt that answered becomes a failure on the trace, and the
 * endpoint's health and the session's sticky endpoint hear of it.
 *
 * The gate also keeps the trace's route reason true to what happened: a fallback that served the
 * request is named when the answer is committed, and forgotten if that answer fails after all.
 */
export class FirstByteGate implements CommittedAnswer {
  private passed = false;
  private readonly trace: RouteTrace;
  private readonly planReason: string;
  private readonly onLateFailure: () => void;

  constructor(trace: RouteTrace, planReason: string, onLateFailure: () => void) {
    this.trace = trace;
    this.planReason = planReason;
    this.onLateFailure = onLateFailure;
  }

  /** Whether a failure now can still go to another endpoint. */
  get open(): boolean {
    return !this.passed;
  }

  /** The answer is committed: the trace's last attempt answered. */
  pass(): void {
    this.passed = true;
    const trace = this.trace;
    if (servedByFallback(trace.attempts)) {
      trace.fallback = true;
      trace.reason = describeFallback(this.planReason, trace.attempts);
    }
  }

  failAfterFirstByte(error: unknown, status: number, cancelled: boolean): void {
    if (!cancelled) this.onLateFailure();
    const trace = this.trace;
    const last = trace.attempts[trace.attempts.length - 1];
    if (last && error instanceof ProviderError) {
      last.status = status;
      last.error_type = error.type;
      last.message = error.message;
      // The answering attempt is a failure now: no fallback served the request.
      trace.fallback = false;
      trace.reason = this.planReason;
    }
  }
}
