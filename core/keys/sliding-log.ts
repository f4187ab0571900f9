/**
 * An exact sliding window: entries (time, amount) in arrival order, with a running sum, so adding,
 * expiring and reading the total cost O(1) amortised however many entries the window holds.
 */
export class SlidingLog {
  private times: number[] = [];
  private amounts: number[] = [];
  private head = 0;
  /** Entries dropped from the front arrays by compaction, so sequence numbers stay valid. */
  private dropped = 0;
  total = 0;

  get size(): number {
    return this.times.length - this.head;
  }

  /** The oldest entry's time, or undefined when empty. */
  oldest(): number | undefined {
    return this.head < this.times.length ? this.times[this.head] : undefined;
  }

  /** Adds an entry; returns its sequence number for `adjust`. */
  push(at: number, amount: number): number {
    this.times.push(at);
    this.amounts.push(amount);
    this.total += amount;
    return this.dropped + this.times.length - 1;
  }

  /** Changes an entry's amount (a reservation settled at what was really used), if still in the window. */
  adjust(sequence: number, amount: number): void {
    const index = sequence - this.dropped;
    if (index < this.head || index >= this.times.length) return;
    this.total += amount - this.amounts[index];
    this.amounts[index] = amount;
  }

  /** Drops entries at or before `cutoff`. */
  expire(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head] <= cutoff) {
      this.total -= this.amounts[this.head];
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.amounts = this.amounts.slice(this.head);
      this.dropped += this.head;
      this.head = 0;
    }
  }
}
