// Times the dashboard's usage queries on a database of 1,000,000 usage rows (not part of npm test).
//
//   node bench/usage-queries.ts [--rows 1000000] [--keep DIR] [--reuse DIR]
//
// --reuse DIR times the queries on a database an earlier --keep DIR left, without generating it again.
//
// The rows (3 months, 6 providers, 30 models, 20 keys and requests without one, realistic statuses
// and log-normal latencies; test/helpers/generate-usage-rows.ts) go through the real migrations and
// the writer thread's own UsageBatchWriter (the same INSERT and per-batch rollup UPSERTs as in
// production), in batches of 5,000. Then Patchbay starts on that data dir
// through the composition root, and each /api query is timed over HTTP: "cold" is its first call
// after the start (statements not yet prepared, SQLite's page cache empty; the OS file cache is
// warm, having just been written), "warm" the median of 5 further calls. Target: each under 100 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPatchbay } from '../core/app/create-patchbay.ts';
import { startOfMonth } from '../core/keys/key-limiter.ts';
import { KeyStore } from '../core/keys/key-store.ts';
import { openDatabase } from '../core/sqlite/open-database.ts';
import { UsageBatchWriter, toRowValues, type RowValues } from '../core/usage/usage-batch-writer.ts';
import { generateUsageRows } from '../test/helpers/generate-usage-rows.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const ROWS = Number(option('--rows') ?? 1_000_000);
const reuse = option('--reuse');
const keep = option('--keep') ?? reuse;
const dataDir = keep ?? mkdtempSync(join(tmpdir(), 'patchbay-usage-bench-'));
const TARGET_MS = 100;

const now = Date.now();
const from = startOfMonth(now, -2);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// 1. Generate (unless reusing a kept database).
const generateStart = performance.now();
const db = openDatabase(dataDir);
const keys = new KeyStore(db);
let keyIds: string[];
if (reuse) {
  keyIds = (db.prepare("SELECT id FROM api_keys WHERE name LIKE 'bench key %' ORDER BY rowid").pluck().all() as string[]);
} else {
  keyIds = Array.from({ length: 20 }, (_, i) => keys.create({ name: `bench key ${i}` }).record.id);
  const writer = new UsageBatchWriter(db, (message) => console.error(message));
  let batch: RowValues[] = [];
  for (const row of generateUsageRows({ rows: ROWS, from, to: now, keys: keyIds })) {
    batch.push(toRowValues(row));
    if (batch.length === 5000) {
      writer.write(batch);
      batch = [];
    }
  }
  writer.write(batch);
}
const sizes = db.prepare("SELECT (SELECT count(*) FROM usage) AS usage, (SELECT count(*) FROM usage_hourly) AS hourly, (SELECT count(*) FROM usage_latency_daily) AS latency, (SELECT count(*) FROM usage_sessions) AS sessions, (SELECT count(DISTINCT session_id) FROM usage_sessions) AS distinctSessions").get() as Record<string, number>;
db.close();
const generateS = (performance.now() - generateStart) / 1000;
console.log(`Generated ${sizes.usage.toLocaleString('en')} rows in ${generateS.toFixed(1)} s (${((generateS * 1e6) / ROWS).toFixed(1)} µs per row, rollups included); usage_hourly ${sizes.hourly.toLocaleString('en')} rows, usage_latency_daily ${sizes.latency.toLocaleString('en')} rows, usage_sessions ${sizes.sessions.toLocaleString('en')} rows (${sizes.distinctSessions.toLocaleString('en')} sessions).`);

// 2. Time each query through HTTP.
const patchbay = await createPatchbay({ dataDir, host: '127.0.0.1', port: 0, env: {}, keychainService: `patchbay-bench-${process.pid}`, log: () => undefined });
// The server runs in this process: its CPU time per query (process.cpuUsage) is the figure that
// holds on a shared machine, where wall time also counts the other processes' turns.
const get = async (path: string) => {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const response = await fetch(`${patchbay.url}/api${path}`, { headers: { authorization: `Bearer ${patchbay.adminToken}` } });
  const body = (await response.json()) as Record<string, unknown>;
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpuBefore);
  const cpu = (used.user + used.system) / 1000;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return { ms, cpu, body };
};

const all = `from=${day(from)}&to=${day(now)}`;
const lastMonth = `from=${day(startOfMonth(now, -1))}&to=${day(startOfMonth(now) - 1)}`;
const lastWeek = `from=${day(now - 6 * 86_400_000)}&to=${day(now)}`;
const firstPage = (await get(`/usage/log?${all}&limit=50`)).body as { data: { request_id: string }[]; next_cursor: string };
const someId = firstPage.data[17].request_id;
const sessionsPage = (await get(`/usage/sessions?${all}&limit=50`)).body as { data: { session_id: string }[]; next_cursor: string };
const someSession = sessionsPage.data[7].session_id;
const queries: [string, string][] = [
  ['totals, 3 months', `/usage/totals?${all}`],
  ['totals, this month (default)', '/usage/totals'],
  ['series day × provider, 3 months', `/usage/series?${all}&bucket=day&group_by=provider`],
  ['series day × model, 3 months', `/usage/series?${all}&bucket=day&group_by=model`],
  ['series day × key, 3 months', `/usage/series?${all}&bucket=day&group_by=key`],
  ['series hour × provider, 7 days', `/usage/series?${lastWeek}&bucket=hour&group_by=provider`],
  ['series hour × model, 7 days', `/usage/series?${lastWeek}&bucket=hour&group_by=model`],
  ['latency p50/p95 per provider and day, 3 months', `/usage/latency?${all}`],
  ['log, first page (50), 3 months', `/usage/log?${all}&limit=50`],
  ['log, second page (cursor)', `/usage/log?${all}&limit=50&cursor=${firstPage.next_cursor}`],
  ['log, status=error', `/usage/log?${all}&status=error`],
  ['log, status=ok', `/usage/log?${all}&status=ok`],
  ['log, status=502', `/usage/log?${all}&status=502`],
  ['log, status=418 (no match: whole range)', `/usage/log?${all}&status=418`],
  ['log, provider=groq', `/usage/log?${all}&provider=groq`],
  ['log, model=together-model-2', `/usage/log?${all}&model=together-model-2`],
  ['log, key_id', `/usage/log?${all}&key_id=${keyIds[7]}`],
  ['log, key_id=unknown (no match)', `/usage/log?${all}&key_id=key_unknown`],
  ['log, provider=mistral (no match)', `/usage/log?${all}&provider=mistral`],
  ['log, model=unknown (no match)', `/usage/log?${all}&model=no-such-model`],
  ['log, status=201 (no match)', `/usage/log?${all}&status=201`],
  ['log, provider=groq + status=429 + key', `/usage/log?${all}&provider=groq&status=429&key_id=${keyIds[3]}`],
  ['log, model + status=error, last month', `/usage/log?${lastMonth}&model=openai-model-1&status=error`],
  ['log/:request_id', `/usage/log/${someId}`],
  ['sessions, first page (50), 3 months', `/usage/sessions?${all}&limit=50`],
  ['sessions, this month (default)', '/usage/sessions'],
  ['sessions, second page (cursor)', `/usage/sessions?${all}&limit=50&cursor=${sessionsPage.next_cursor}`],
  ['sessions, provider=groq', `/usage/sessions?${all}&provider=groq`],
  ['sessions, model=together-model-2', `/usage/sessions?${all}&model=together-model-2`],
  ['sessions, key_id', `/usage/sessions?${all}&key_id=${keyIds[7]}`],
  ['sessions, status=error', `/usage/sessions?${all}&status=error`],
  ['sessions, status=429', `/usage/sessions?${all}&status=429`],
  ['sessions, status=418 (no match)', `/usage/sessions?${all}&status=418`],
  ['sessions, last month', `/usage/sessions?${lastMonth}`],
  ['requests?session=ID (all time)', `/usage/requests?session=${someSession}`],
  ['log, session=ID, 3 months', `/usage/log?${all}&session=${someSession}`],
  ['log, session=unknown (no match)', `/usage/log?${all}&session=no-such-session`],
  ['status', '/status'],
];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const results: { name: string; cold: number; warm: number; cpu: number }[] = [];
for (const [name, path] of queries) {
  const cold = (await get(path)).ms;
  const warm: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const timed = await get(path);
    warm.push(timed.ms);
    cpu.push(timed.cpu);
  }
  results.push({ name, cold, warm: median(warm), cpu: median(cpu) });
}
await patchbay.close();
if (!keep) rmSync(dataDir, { recursive: true, force: true });

console.log(`\n| query (${ROWS.toLocaleString('en')} rows) | cold ms | warm ms (median of 5) | warm CPU ms (median of 5) |\n| --- | ---: | ---: | ---: |`);
for (const r of results) console.log(`| ${r.name} | ${r.cold.toFixed(1)} | ${r.warm.toFixed(1)} | ${r.cpu.toFixed(1)} |`);
const slow = results.filter((r) => Math.max(r.cold, r.warm) >= TARGET_MS);
console.log(slow.length ? `\nFAIL: over ${TARGET_MS} ms: ${slow.map((r) => r.name).join('; ')}` : `\nPASS: every query under ${TARGET_MS} ms, cold and warm.`);
process.exitCode = slow.length ? 1 : 0;
