import { Worker } from 'node:worker_threads';
import type { CountAnswer, CountJob } from './tokenize-worker.ts';

/** What a count found: `exact` false means an estimate (a long run counted in slices). */
export interface TokenCount {
  tokens: number;
  exact: boolean;
}

/** How long a request waits for a count before deciding with the byte bounds instead. */
export const COUNT_BUDGET_MS = 250;
/** Texts larger than this (UTF-8 bytes) are never counted: the bounds decide. */
export const MAX_COUNT_BYTES = 256 * 1024;
/** Extra wait for a thread still loading the tokenizer (~0.1-1 s): counting time is what the budget bounds. */
export const LOAD_ALLOWANCE_MS = 5000;
/** Counts waiting at most; more at once are answered with the bounds at once. */
export const MAX_QUEUED_COUNTS = 16;

export interface TokenCounterOptions {
  budgetMs?: number;
  maxBytes?: number;
  maxQueued?: number;
}

interface Pending {
  resolve: (count: TokenCount | null) => void;
  timer: NodeJS.Timeout;
}

/**
 * Exact token counts (gpt-tokenizer, o200k) on a worker thread, so a slow count never holds up
 * the event loop: one thread, started on first use and reused, unref'd so it never keeps the
 * process alive. `count` answers null — decide with the bounds — when the text is over the size
 * cap, the queue is full, the thread fails, or the answer takes longer than the time budget.
 */
export class TokenCounter {
  private worker: Worker | undefined;
  private ready = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly budgetMs: number;
  private readonly maxBytes: number;
  private readonly maxQueued: number;

  constructor(options: TokenCounterOptions = {}) {
    this.budgetMs = options.budgetMs ?? COUNT_BUDGET_MS;
    this.maxBytes = options.maxBytes ?? MAX_COUNT_BYTES;
    this.maxQueued = options.maxQueued ?? MAX_QUEUED_COUNTS;
  }

  /** `bytes`, when the caller already knows the text's UTF-8 size, spares measuring it again. */
  count(text: string, bytes = Buffer.byteLength(text)): Promise<TokenCount | null> {
    if (bytes > this.maxBytes || this.pending.size >= this.maxQueued) return Promise.resolve(null);
    const worker = this.start();
    const id = this.nextId++;
    const waitMs = this.ready ? this.budgetMs : this.budgetMs + LOAD_ALLOWANCE_MS;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, null), waitMs);
      timer.unref();
      this.pending.set(id, { resolve, timer });
      // The thread counts for at most the budget from when it starts the job, and skips a job that
      // waited in its queue until nobody wants the answer (wall-clock time, shared by both threads).
      worker.postMessage({ id, text, budgetMs: this.budgetMs, staleAt: Date.now() + waitMs } satisfies CountJob);
    });
  }

  /** Stops the thread (on shutdown); a later count starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll();
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // The same kind of file as this one: TypeScript sources (tests), or core/ compiled to dist/.
    const script = new URL(import.meta.url.endsWith('.ts') ? './tokenize-worker.ts' : './tokenize-worker.js', import.meta.url);
    const worker = new Worker(script);
    worker.unref();
    this.ready = false;
    worker.on('message', (answer: CountAnswer | 'ready') => {
      if (answer === 'ready') this.ready = true;
      else this.settle(answer.id, answer.tokens === null ? null : { tokens: answer.tokens, exact: answer.exact });
    });
    // A thread that fails answers nothing more: its waiting counts fall back to the bounds, the next count starts a new one.
    const lost = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }

  private settle(id: number, count: TokenCount | null): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(count);
  }

  private failAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, null);
  }
}
