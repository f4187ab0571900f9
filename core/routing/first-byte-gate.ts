import { ProviderError } from '../errors/provider-error.ts';
import type { RouteTrace } from './route-trace.ts';

/**
 * The one place that knows whether a request can still fall back: until its first byte reaches
 * the client it can (the executor tries the next candidate); once `pass` is called the answer is
 * committed, and a failure after it travels inside the stream. `failAfterFirstByte` is what the
 * stream path calls then: the attempt that answered becomes a failure on the trace, and the
 * endpoint's health and the session's sticky endpoint hear of it.
 */
export class FirstByteGate {
  private passed = false;
  private readonly trace: RouteTrace;
  private readonly onLateFailure: () => void;

  constructor(trace: RouteTrace, onLateFailure: () => void) {
    this.trace = trace;
    this.onLateFailure = onLateFailure;
  }

  /** Whether a failure now can still go to another endpoint. */
  get open(): boolean {
    return !this.passed;
  }

  pass(): void {
    this.passed = true;
  }

  /** A committed answer failed (`cancelled`: the client left, which says nothing about the endpoint). */
  failAfterFirstByte(error: unknown, status: number, cancelled: boolean): void {
    if (!cancelled) this.onLateFailure();
    const last = this.trace.attempts[this.trace.attempts.length - 1];
    if (last && error instanceof ProviderError) {
      last.status = status;
      last.error_type = error.type;
      last.message = error.message;
    }
  }
}
