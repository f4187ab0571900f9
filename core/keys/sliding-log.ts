const MIN_CAPACITY = 64;

/**
 * An exact sliding window: entries (time, amount) in arrival order, with a running sum, so adding,
 * expiring and reading the total cost O(1) amortised however many entries the window holds.
 *
 * Amounts that arrive in the same millisecond share one entry (times are Date.now() milliseconds,
 * so nothing is lost): a minute holds at most 60,000 entries however busy the key, about 1 MB.
 * One entry per request grew a busy key's two windows (requests and tokens, ~300k requests a
 * minute at 5,000 req/s) to 16 MB, and the router's RSS with them.
 *
 * The entries live in a ring of two Float64Arrays that doubles when full and halves when mostly
 * empty: outside the JavaScript heap (nothing for the garbage collector to scan or move), and not
 * reallocated as entries come and go, only when the window's size changes by 2x.
 */
export class SlidingLog {
  private times = new Float64Array(MIN_CAPACITY);
  private amounts = new Float64Array(MIN_CAPACITY);
  /** Capacity − 1 (the capacity is a power of two): a position modulo the capacity. */
  private mask = MIN_CAPACITY - 1;
  /** Position of the oldest entry. */
  private head = 0;
  private count = 0;
  /** Sequence number of the oldest entry (entries are numbered from 0 as they are pushed). */
  private first = 0;
  total = 0;

  /** Entries in the window: distinct milliseconds, not amounts (see `total`). */
  get size(): number {
    return this.count;
  }

  /** The oldest entry's time, or undefined when empty. */
  oldest(): number | undefined {
    return this.count > 0 ? this.times[this.head] : undefined;
  }

  /** Adds an amount at a time (to the newest entry when it has the same time); returns the entry's sequence number for `adjust`. */
  push(at: number, amount: number): number {
    if (this.count > 0) {
      const newest = (this.head + this.count - 1) & this.mask;
      if (this.times[newest] === at) {
        this.amounts[newest] += amount;
        this.total += amount;
        return this.first + this.count - 1;
      }
    }
    if (this.count === this.times.length) this.resize(this.times.length * 2);
    const position = (this.head + this.count) & this.mask;
    this.times[position] = at;
    this.amounts[position] = amount;
    this.count++;
    this.total += amount;
    return this.first + this.count - 1;
  }

  /** Adds `delta` to an entry's amount (a reservation settled at what was really used), if it is still in the window. */
  adjust(sequence: number, delta: number): void {
    const offset = sequence - this.first;
    if (offset < 0 || offset >= this.count) return;
    this.amounts[(this.head + offset) & this.mask] += delta;
    this.total += delta;
  }

  /** Drops entries at or before `cutoff`. */
  expire(cutoff: number): void {
    while (this.count > 0 && this.times[this.head] <= cutoff) {
      this.total -= this.amounts[this.head];
      this.head = (this.head + 1) & this.mask;
      this.count--;
      this.first++;
    }
    // Memory follows the window back down after a burst.
    if (this.times.length > MIN_CAPACITY && this.count * 4 < this.times.length) this.resize(this.times.length / 2);
  }

  /** Moves the entries, oldest first, into arrays of the new capacity (a power of two that holds them all). */
  private resize(capacity: number): void {
    const times = new Float64Array(capacity);
    const amounts = new Float64Array(capacity);
    for (let i = 0; i < this.count; i++) {
      const position = (this.head + i) & this.mask;
      times[i] = this.times[position];
      amounts[i] = this.amounts[position];
    }
    this.times = times;
    this.amounts = amounts;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
