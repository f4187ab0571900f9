/**
 * The counting thread: loads gpt-tokenizer (o200k; its tables take ~100 ms to load and tens of MB)
 * off the main thread and counts texts one at a time within the deadline each request carries.
 */
import { parentPort } from 'node:worker_threads';
import { countTokens } from 'gpt-tokenizer';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countTextTokens } from './count-text-tokens.ts';

export interface CountJob {
  id: number;
  text: string;
  /** Longest this job may count, from when the thread starts it. */
  budgetMs: number;
  /** Wall-clock time (Date.now()) after which the answer is no longer wanted. */
  staleAt: number;
}

export interface CountAnswer {
  id: number;
  /** Null when the budget ran out. */
  tokens: number | null;
  exact: boolean;
}

// Special-token text (`<|endoftext|>`) in a prompt is text to a model's API, not a control token:
// count it as text (gpt-tokenizer would otherwise throw), which keeps the byte bounds valid too.
const asText = { disallowedSpecial: new Set<string>() };
const count = (text: string) => countTokens(text, asText);

parentPort!.on('message', (job: CountJob) => {
  let answer: CountAnswer;
  try {
    const left = Math.min(job.budgetMs, job.staleAt - Date.now());
    const result = left > 0 ? countTextTokens(job.text, O200K_TOKEN_SPLIT_REGEX, count, performance.now() + left) : null;
    answer = { id: job.id, tokens: result?.tokens ?? null, exact: result?.exact ?? false };
  } catch {
    answer = { id: job.id, tokens: null, exact: false };
  }
  parentPort!.postMessage(answer);
});
// The tokenizer is loaded (the imports above): from now on the budget is counting time only.
parentPort!.postMessage('ready');
