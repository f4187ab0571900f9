/**
 * How much of one upstream answer Patchbay holds in memory. Memory is the process's, so these are
 * process-wide, like the shared connection pool; createPatchbay sets them from its options.
 */
export interface UpstreamLimits {
  /**
   * A non-streaming answer is read whole before it is parsed: beyond this it is cut. The largest
   * legitimate answer measured is ~118 MB (2,048 inputs to text-embedding-3-large as floats,
   * pretty-printed the way OpenAI sends them); 192 MB leaves headroom over it.
   */
  maxAnswerBytes: number;
  /** One server-sent event (or one line) of a stream: a line that never ends is cut here. */
  maxEventBytes: number;
}

export const DEFAULT_UPSTREAM_LIMITS: Readonly<UpstreamLimits> = Object.freeze({ maxAnswerBytes: 192 * 1024 * 1024, maxEventBytes: 16 * 1024 * 1024 });

/** Read on every upstream answer: one object, replaced (never mutated) by setUpstreamLimits. */
export let upstreamLimits: Readonly<UpstreamLimits> = DEFAULT_UPSTREAM_LIMITS;

export function setUpstreamLimits(limits: Partial<UpstreamLimits> = {}): void {
  upstreamLimits = Object.freeze({ ...DEFAULT_UPSTREAM_LIMITS, ...limits });
}

/** A byte count as the messages say it: "192 MB", "64 KB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}
