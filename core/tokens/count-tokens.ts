import { TokenCounter, type TokenCount, type TokenCounterOptions } from './token-counter.ts';

/** The process's one counting thread, shared by routing and usage estimates (started on first use). */
let sharedCounter = new TokenCounter();

/**
 * o200k token count of a text, off the main thread; null when it is unknown (too large, too slow,
 * too many at once): the caller then decides with the byte bounds of token-bounds.ts.
 */
export function countTokens(text: string, bytes?: number): Promise<TokenCount | null> {
  return sharedCounter.count(text, bytes);
}

/** Stops the counting thread (Patchbay.close); a later count starts it again. */
export function closeTokenCounter(): Promise<void> {
  return sharedCounter.close();
}

/** Replaces the counting thread by one with other settings (tests: a time budget no loaded machine runs out of). */
export function configureTokenCounter(options: TokenCounterOptions): Promise<void> {
  const old = sharedCounter;
  sharedCounter = new TokenCounter(options);
  return old.close();
}
