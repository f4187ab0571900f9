// What the redaction of provider secrets costs an answer on its way to the client (issue 34, 6):
// core/providers/scan-secrets.ts, run on every chunk of every upstream body (streams and passed-
// through answers) and once over every whole (held) answer. Not part of npm test.
//
//   node bench/secret-scan.ts [--mb 64] [--rounds 5]
//
// Three shapes, each with no secret known (what a keyless local provider costs: nothing is scanned)
// and with five provider keys known (a Patchbay with five providers; random keys in the providers' formats and lengths): SSE chunks as an OpenAI-
// compatible stream sends them (one ~230-byte event each), a passed-through answer in 64 KB chunks,
// and whole 1.5 KB JSON answers. Figures: µs per chunk or answer and MB/s, the median of the rounds.
import { randomInt } from 'node:crypto';
import { redactAnswer, SecretScanner } from '../core/providers/scan-secrets.ts';
import { rememberSecret } from '../core/errors/redact-secrets.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const MB = option('--mb', 64);
const ROUNDS = option('--rounds', 5);

const sse = Buffer.from(`data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'llama-3.3-70b', choices: [{ index: 0, delta: { content: 'the quick brown fox jumps over the lazy dog ' }, finish_reason: null }] })}\n\n`);
const prose = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';
const large = Buffer.from(prose.repeat(Math.ceil((64 * 1024) / prose.length)).slice(0, 64 * 1024));
const answer = Buffer.from(JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: prose.repeat(11) }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 300, total_tokens: 312 } }));

/**
 * Pushes `chunk` through one scanner per `perScanner` chunks (0: each chunk is a whole answer,
 * redacted as send-upstream.ts does) until `bytes` went through; µs per chunk and MB/s.
 */
function measure(chunk: Buffer, bytes: number, perScanner: number): { usPerChunk: number; mbPerS: number } {
  const count = Math.max(1, Math.round(bytes / chunk.length));
  let scanner = new SecretScanner();
  let out = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    if (perScanner === 0) {
      out += redactAnswer(chunk).length;
      continue;
    }
    if (i % perScanner === 0) {
      for (const piece of scanner.end()) out += piece.length;
      scanner = new SecretScanner();
    }
    for (const piece of scanner.push(chunk)) out += piece.length;
  }
  for (const piece of scanner.end()) out += piece.length;
  const ns = Number(process.hrtime.bigint() - started);
  if (out < count * chunk.length * 0.99) throw new Error('the scan dropped bytes');
  return { usPerChunk: ns / 1000 / count, mbPerS: (count * chunk.length) / (1024 * 1024) / (ns / 1e9) };
}

/** Random letters and digits, as the providers' keys are made of (in their documented lengths above). */
const random = (length: number) => Array.from({ length }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[randomInt(62)]).join('');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function run(label: string): string[] {
  const shapes = [
    { name: `SSE event (${sse.length} B), a 500-event stream per scanner`, chunk: sse, perScanner: 500 },
    { name: 'passed-through answer, 64 KB chunks', chunk: large, perScanner: 1_000_000 },
    { name: `whole JSON answer (${answer.length} B), held and redacted whole`, chunk: answer, perScanner: 0 },
  ];
  return shapes.map(({ name, chunk, perScanner }) => {
    const rounds = Array.from({ length: ROUNDS }, () => measure(chunk, MB * 1024 * 1024, perScanner));
    return `| ${label} | ${name} | ${median(rounds.map((r) => r.usPerChunk)).toFixed(2)} | ${median(rounds.map((r) => r.mbPerS)).toFixed(0)} |`;
  });
}

const lines = ['| secrets known | shape | µs per chunk | MB/s |', '| --- | --- | ---: | ---: |'];
// Warm-up: the JIT, at both settings, before anything is timed.
measure(sse, 8 * 1024 * 1024, 500);
lines.push(...run('none'));
for (const key of [`sk-proj-${random(156)}`, `sk-ant-api03-${random(95)}-${random(6)}AA`, `AIzaSy${random(33)}`, `gsk_${random(52)}`, `tgp_v1_${random(43)}`]) rememberSecret(key);
measure(sse, 8 * 1024 * 1024, 500);
lines.push(...run('five provider keys'));
process.stdout.write(`${lines.join('\n')}\n`);
