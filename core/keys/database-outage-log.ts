/**
 * Says once per outage that the database is unreachable and what the limits do meanwhile, and once
 * when it is back: the caps and the shared rate windows share one outage, so it is logged once.
 */
export class DatabaseOutageLog {
  private readonly clock: () => number;
  private readonly log: (message: string) => void;
  /** Since when the database has been unreachable (null: reachable). */
  private unreachableSince: number | null = null;

  constructor(clock: () => number, log: (message: string) => void) {
    this.clock = clock;
    this.log = log;
  }

  unreachable(error: Error, what: string): void {
    if (this.unreachableSince !== null) return;
    this.unreachableSince = this.clock();
    this.log(`The database is unreachable (${error.message}): ${what}.`);
  }

  reachable(): void {
    if (this.unreachableSince === null) return;
    this.log(`The database is reachable again after ${((this.clock() - this.unreachableSince) / 1000).toFixed(1)} s; limits and caps are shared again.`);
    this.unreachableSince = null;
  }
}
