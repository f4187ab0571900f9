// The usage writer's cost per committed row (not part of npm test): what the writer thread spends,
// beside the request thread, to commit the rows the server hands it.
//
//   node bench/writer-cost.ts [--prefill 200000] [--rows 20000] [--batches 1,50,500] [--cache-kib N]
//
// --cache-kib: the connection's SQLite page cache (PRAGMA cache_size = -N) instead of the one the
// writer thread sets, to weigh its memory against the CPU per row.
//
// A fresh database through the real migrations is first filled with `prefill` rows (so the
// indexes have their working depth), then `rows` more are committed through UsageBatchWriter, the
// writer thread's own class, in batches of each size: 500 is a batch under load (the store hands
// over at most 500 rows per 50 ms), 50 moderate traffic, 1 a lone request. Rows look like the
// bench's traffic: request ids as nextRequestId makes them, increasing ts, two providers of one
// alias, one key, mostly 200s. Figures: CPU µs per row of this process (user + system: the CPU the writer thread takes from the
// machine),
// median of 5 repetitions (the database sits in the page cache; commits with synchronous = NORMAL).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../core/sqlite/open-database.ts';
import { UsageBatchWriter, toRowValues, type RowValues } from '../core/usage/usage-batch-writer.ts';
import type { UsageRecord } from '../core/usage/usage-record.ts';

const { values } = parseArgs({ options: { prefill: { type: 'string', default: '200000' }, rows: { type: 'string', default: '20000' }, batches: { type: 'string', default: '1,50,500' }, 'cache-kib': { type: 'string' } } });
const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-writer-cost-'));
const db = openDatabase(dataDir);
if (values['cache-kib']) db.pragma(`cache_size = -${Number(values['cache-kib'])}`);
const writer = new UsageBatchWriter(db, (message) => console.error(message));

let ts = Date.now() - 86_400_000;
let counter = 0;
function row(): RowValues {
  counter++;
  if (counter % 3 === 0) ts++;
  const status = counter % 50 === 0 ? 500 : counter % 70 === 0 ? 429 : 200;
  const provider = counter % 2 ? 'groq' : 'together';
  const record: UsageRecord = {
    ts,
    requestId: `req_${ts.toString(36)}k3f9${counter.toString(36).padStart(5, '0')}`,
    keyId: 'key_bench0000000000',
    endpoint: 'chat',
    requestedModel: 'llama-3.3-70b',
    provider,
    model: provider === 'groq' ? 'llama-3.3-70b-versatile' : 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    strategy: 'balanced',
    status,
    errorType: status === 200 ? null : 'server_error',
    stream: false,
    promptTokens: status === 200 ? 12 : 0,
    completionTokens: status === 200 ? 9 : 0,
    totalTokens: status === 200 ? 21 : 0,
    inputPrice: 0.59,
    outputPrice: 0.79,
    costUsd: status === 200 ? 0.0000142 : 0,
    latencyMs: 0.4 + (counter % 17) / 10,
    firstByteMs: null,
    attempts: [{ provider, model: 'llama-3.3-70b-versatile', status, latency_ms: 0.4 } as never],
    routeReason: `alias llama-3.3-70b; balanced chose ${provider}/llama-3.3-70b-versatile`,
  };
  return toRowValues(record);
}

const prefill = Number(values.prefill);
for (let done = 0; done < prefill; done += 5000) writer.write(Array.from({ length: Math.min(5000, prefill - done) }, row));

const rows = Number(values.rows);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const size of values.batches.split(',').map(Number)) {
  const perRow: number[] = [];
  for (let repetition = 0; repetition < 5; repetition++) {
    const n = Math.max(size, Math.floor(rows / (size === 1 ? 10 : 1) / size) * size);
    const batches = Array.from({ length: n / size }, () => Array.from({ length: size }, row));
    const before = process.cpuUsage();
    for (const batch of batches) writer.write(batch);
    const used = process.cpuUsage(before);
    perRow.push((used.user + used.system) / n);
  }
  console.log(`batches of ${size}: ${median(perRow).toFixed(1)} µs CPU per row (median of 5; ${perRow.map((x) => x.toFixed(1)).join(', ')})`);
}
db.close();
rmSync(dataDir, { recursive: true, force: true });
