import { TokenCounter, type TokenCount } from './token-counter.ts';

/** The process's one counting thread, shared by routing and usage estimates (started on first use). */
const sharedCounter = new TokenCounter();

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
