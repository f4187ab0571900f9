// What OpenTelemetry costs a request: the same build side by side with export off (A) and on (B),
// through compare-builds.ts (interleaved rounds, medians): CPU µs per request and time to the first
// chunk of a stream. B exports traces and metrics over OTLP/HTTP protobuf to a sink on loopback that
// reads each export whole and answers 200 (a collector that keeps up), spans batched every second.
//
//   node bench/telemetry-cost.ts [--rounds 5] [--concurrency 1,16] [bin]
//
// Export off is the default: its cost against the build before telemetry existed is measured with
// compare-builds.ts itself (see docs/observability.md, "What it costs").
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '1,16' } } });
const bin = resolve(positionals[0] ?? 'bin/patchbay.js');

let exports = 0;
let bytes = 0;
const sink = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((done) => sink.listen(0, '127.0.0.1', done));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const on = [`OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint}`, 'OTEL_BSP_SCHEDULE_DELAY=1000', 'OTEL_METRIC_EXPORT_INTERVAL=5000'].join(' ');
process.stdout.write(`A: export off; B: export on to ${endpoint} (OTLP/HTTP protobuf, traces and metrics)\n`);
const child = spawn(process.execPath, ['bench/compare-builds.ts', bin, bin, `--rounds=${values.rounds}`, `--concurrency=${values.concurrency}`, `--env-b=${on}`], { stdio: 'inherit' });
const code = await new Promise<number>((done) => child.on('exit', (exit) => done(exit ?? 1)));
process.stdout.write(`The sink took ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB.\n`);
sink.close();
process.exit(code);
