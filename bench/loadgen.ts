// The load generator: its own process (forked by run-bench.ts, driven over IPC), so it never
// shares an event loop with the upstream or a gateway. Closed-loop workers on an undici Pool
// with keep-alive (one per job); every response is checked (status 200 and the right body) and counted.
import { Pool } from 'undici';
import { checkChat, checkEmbedding, streamText } from './wire.ts';

export type JobKind = 'chat' | 'stream' | 'embeddings';

export interface Job {
  kind: JobKind;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  concurrency: number;
  /** Stop issuing after this long (the requests in flight still finish and count). */
  durationMs: number;
  /** ... or after this many requests, whichever comes first. */
  maxRequests: number;
  /** Stream jobs: how many content chunks the upstream sends. */
  streamChunks?: number;
}

export interface JobResult {
  /** Requests sent, each answered (right or wrong). */
  count: number;
  /** Answers that were not a 200 with the right body. */
  errors: number;
  errorSamples: string[];
  elapsedMs: number;
  /** Per request: ms from send to the last byte of the answer. */
  latencies: Float64Array;
  /** Stream jobs: ms from send to the first content chunk, per stream. */
  ttfb: Float64Array;
  /** Stream jobs: ms between consecutive content chunks as they arrived. */
  gaps: Float64Array;
  /** Stream jobs: content chunks that arrived in the same read as the one before (batched). */
  batched: number;
}

/**
 * One job on a pool of its own, closed when the job ends: its connections are opened by the job
 * (the first request of each worker includes a loopback connect) and closed before the next job
 * starts. A pool kept across jobs left up to 256 idle connections per target after the heavy
 * phases, and their idle timeout closed them during a later segment: measured, the teardown of
 * 320 idle connections inside a concurrency-1 segment raised its p99 from 0.8-1.1 ms to 1.0-2.3 ms
 * and its CPU per request by ~25 %, for whichever target happened to be measured then.
 *
 * The pool may open more connections than there are workers (512, as before): with exactly one
 * per worker, a worker's next request waited in the pool until its connection was released, and
 * the slower client cut Patchbay's measured c16 throughput by 17 % (Portkey's by 4 %).
 */
async function runJob(job: Job): Promise<JobResult> {
  const pool = new Pool(job.origin, { connections: 512, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const body = Buffer.from(job.body);
  const headers = { 'content-type': 'application/json', ...job.headers };
  const latencies: number[] = [];
  const ttfb: number[] = [];
  const gaps: number[] = [];
  const errorSamples: string[] = [];
  const expectedStream = job.kind === 'stream' ? streamText(job.streamChunks ?? 0) : '';
  let errors = 0;
  let batched = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + job.durationMs;

  const fail = (why: string) => {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(why);
  };

  async function one(): Promise<void> {
    const t0 = performance.now();
    const response = await pool.request({ path: job.path, method: 'POST', headers, body });
    if (job.kind !== 'stream') {
      const text = await response.body.text();
      latencies.push(performance.now() - t0);
      if (response.statusCode !== 200) return fail(`status ${response.statusCode}: ${text.slice(0, 300)}`);
      const problem = job.kind === 'chat' ? checkChat(text) : checkEmbedding(text);
      if (problem) fail(problem);
      return;
    }
    // A stream: timestamp every content chunk as its read completes; chunks that complete in the
    // same read as the previous one were batched somewhere on the way.
    let pending = '';
    let content = '';
    let done = false;
    let first = -1;
    let previous = -1;
    let problem: string | null = response.statusCode === 200 ? null : `status ${response.statusCode}`;
    for await (const part of response.body) {
      const now = performance.now();
      pending += (part as Buffer).toString('utf8');
      let readChunks = 0;
      for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (problem) continue;
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (!data) continue;
        if (data === '[DONE]') {
          done = true;
          continue;
        }
        let piece: unknown;
        try {
          piece = (JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta?.content;
        } catch {
          problem = `stream event is not JSON: ${data.slice(0, 200)}`;
          continue;
        }
        if (typeof piece !== 'string' || piece === '') continue;
        content += piece;
        if (first < 0) {
          first = now;
          ttfb.push(now - t0);
        } else {
          gaps.push(now - previous);
          if (readChunks > 0) batched++;
        }
        readChunks++;
        previous = now;
      }
    }
    latencies.push(performance.now() - t0);
    if (problem) return fail(problem);
    if (!done) return fail('stream ended without data: [DONE]');
    if (content !== expectedStream) fail(`stream content differs: ${JSON.stringify(content.slice(0, 120))}`);
  }

  async function worker(): Promise<void> {
    while (issued < job.maxRequests && performance.now() < deadline) {
      issued++;
      try {
        await one();
      } catch (error) {
        fail(`request failed: ${(error as Error).message}`);
      }
    }
  }

  await Promise.all(Array.from({ length: job.concurrency }, () => worker()));
  const elapsedMs = performance.now() - started;
  await pool.close();
  return {
    count: issued,
    errors,
    errorSamples,
    elapsedMs,
    latencies: Float64Array.from(latencies),
    ttfb: Float64Array.from(ttfb),
    gaps: Float64Array.from(gaps),
    batched,
  };
}

process.on('message', (message: { id: number; job: Job }) => {
  runJob(message.job).then(
    (result) => process.send!({ id: message.id, result }),
    (error: Error) => process.send!({ id: message.id, error: error.stack ?? error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
