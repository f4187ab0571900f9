// A Codex-shaped session over HTTP (SSE) and over the Responses WebSocket, through the real Patchbay
// (composition root, real HTTP on loopback) in front of a provider's test emulator: the bytes the
// client sends per turn (counted on the wire by a TCP proxy, HTTP heads and WebSocket framing and
// compression included) and the time to the first token of each turn. Not part of npm test.
//
//   node bench/codex-websocket.ts [--turns 20] [--provider anthropic|openai] [--latency 0]
//
// The session is what Codex sends (test/helpers/codex-request.ts: its headers, body keys and tools),
// with Patchbay's Codex instructions (~2,000 characters; Codex's own run to ~17,000) as the first
// developer message; each turn adds a user message and a tool output of about 300 words, and the
// model answers about 80 words. Over HTTP every turn POSTs the whole history (what Codex does);
// over the WebSocket the connection opens with Codex's warm-up, then each turn sends only its new
// items after previous_response_id, with permessage-deflate as Codex negotiates it (and without, a
// third column). Token counts are the emulator's; the figures are for comparing the transports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { codexInstructions } from '../core/agents/codex-instructions.ts';
import { createPatchbay } from '../core/app/create-patchbay.ts';
import { ByteCountingProxy } from '../test/helpers/byte-counting-proxy.ts';
import { codexBody, codexHeaders } from '../test/helpers/codex-request.ts';
import { AnthropicEmulator } from '../test/emulators/anthropic-emulator.ts';
import { OpenAiEmulator } from '../test/emulators/openai-emulator.ts';
import { percentiles } from './stats.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const TURNS = Number(option('--turns', '20'));
const PROVIDER = option('--provider', 'anthropic') as 'anthropic' | 'openai';
const LATENCY_MS = Number(option('--latency', '0'));
const MODEL = PROVIDER === 'anthropic' ? 'anthropic/claude-haiku-4-5-20251001' : 'openai/gpt-4o';

// Words drawn from a 2,000-word made-up vocabulary with a fixed seed: text that compresses about as
// prose and code do (a counter like "out3_17" would compress far better than anything Codex sends).
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const VOCABULARY = Array.from({ length: 2000 }, () => Array.from({ length: 2 + Math.floor(random() * 8) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(''));
const words = (n: number, tag: string) => `${tag} ${Array.from({ length: n }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(' ')}`;
const message = (role: string, text: string) => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });
const ANSWER = words(80, 'answer');

const emulator = PROVIDER === 'anthropic' ? new AnthropicEmulator({ apiKey: 'sk-ant-bench' }) : new OpenAiEmulator({ apiKey: 'sk-bench' });
emulator.script = () => ({ text: ANSWER });
emulator.latencyMs = LATENCY_MS;
const upstream = await emulator.start();
const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-ws-bench-'));
writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ providers: { [PROVIDER]: { baseUrl: `${upstream}/v1` } } }));
const patchbay = await createPatchbay({ dataDir, host: '127.0.0.1', port: 0, env: PROVIDER === 'anthropic' ? { ANTHROPIC_API_KEY: 'sk-ant-bench' } : { OPENAI_API_KEY: 'sk-bench' }, keychainService: `patchbay-ws-bench-${process.pid}`, log: () => undefined });
const key = patchbay.firstKey ?? (await patchbay.stores.keys.create({ name: 'bench' })).secret;
const proxy = new ByteCountingProxy();
const base = await proxy.start({ host: '127.0.0.1', port: patchbay.port });
const sentSoFar = () => proxy.connections.reduce((sum, c) => sum + c.sent, 0);

interface Turn {
  bytes: number;
  firstTokenMs: number;
}

/** The items a turn adds: the user's words and a tool's output. */
const newItems = (turn: number) => [message('user', `Turn ${turn}: ${words(40, `ask${turn}_`)}`), message('user', `Tool output: ${words(260, `out${turn}_`)}`)];

async function overHttp(): Promise<Turn[]> {
  const history: unknown[] = [message('developer', codexInstructions(MODEL))];
  const turns: Turn[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    history.push(...newItems(turn));
    const before = sentSoFar();
    const started = performance.now();
    const res = await fetch(`${base}/v1/responses`, { method: 'POST', headers: codexHeaders(key), body: JSON.stringify(codexBody(MODEL, history)) });
    let first = 0;
    let carry = '';
    let output: unknown[] = [];
    for await (const piece of res.body!.pipeThrough(new TextDecoderStream())) {
      if (!first && piece.includes('response.output_text.delta')) first = performance.now() - started;
      carry += piece;
    }
    for (const block of carry.split('\n\n')) {
      const data = block.split('\n').find((line) => line.startsWith('data: '))?.slice(6);
      if (data?.includes('"response.completed"')) output = (JSON.parse(data) as { response: { output: unknown[] } }).response.output;
    }
    history.push(...output);
    turns.push({ bytes: sentSoFar() - before, firstTokenMs: first });
  }
  return turns;
}

async function overWebSocket(deflate: boolean): Promise<{ turns: Turn[]; opening: number }> {
  const { 'content-type': _type, accept: _accept, ...headers } = codexHeaders(key);
  const before = sentSoFar();
  const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/responses`, { headers: { ...headers, 'openai-beta': 'responses_websockets=2026-02-06' }, perMessageDeflate: deflate });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const turn = (frame: Record<string, unknown>) =>
    new Promise<{ id: string; firstTokenMs: number }>((resolve, reject) => {
      const started = performance.now();
      let first = 0;
      const onMessage = (data: WebSocket.RawData) => {
        const text = String(data);
        if (!first && text.includes('"response.output_text.delta"')) first = performance.now() - started;
        const event = JSON.parse(text) as { type: string; response?: { id: string } };
        if (event.type === 'error' || event.type === 'response.failed') reject(new Error(text));
        if (event.type === 'response.completed') {
          ws.off('message', onMessage);
          resolve({ id: event.response!.id, firstTokenMs: first });
        }
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ type: 'response.create', ...frame }));
    });
  let previous = (await turn({ ...codexBody(MODEL, [message('developer', codexInstructions(MODEL))]), generate: false })).id;
  const opening = sentSoFar() - before;
  const turns: Turn[] = [];
  for (let n = 1; n <= TURNS; n++) {
    const at = sentSoFar();
    const done = await turn({ ...codexBody(MODEL, newItems(n)), previous_response_id: previous });
    previous = done.id;
    turns.push({ bytes: sentSoFar() - at, firstTokenMs: done.firstTokenMs });
  }
  ws.close();
  return { turns, opening };
}

try {
  const phase = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await run();
    console.error(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  await phase('warm-up (HTTP)', overHttp); // JIT, connections, the token counter
  const http = await phase('HTTP', overHttp);
  const ws = await phase('WebSocket, deflate', () => overWebSocket(true));
  const plain = await phase('WebSocket', () => overWebSocket(false));
  const total = (turns: Turn[]) => turns.reduce((sum, t) => sum + t.bytes, 0);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const ttft = (turns: Turn[]) => {
    const [p50, p95] = percentiles(Float64Array.from(turns.map((t) => t.firstTokenMs)), [50, 95]);
    return `${p50.toFixed(1)} / ${p95.toFixed(1)} ms`;
  };
  const rows = [
    ['HTTP (SSE), whole history each turn', http, 0],
    ['WebSocket, new items only, permessage-deflate (as Codex)', ws.turns, ws.opening],
    ['WebSocket, new items only, no compression', plain.turns, plain.opening],
  ] as const;
  console.log(`\n${TURNS}-turn Codex-shaped session via ${PROVIDER} (${MODEL}), emulator latency ${LATENCY_MS} ms\n`);
  console.log('| Transport | Client bytes, turn 1 | turn ' + TURNS + ' | all turns | opening (upgrade + warm-up) | time to first token p50 / p95 |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, turns, opening] of rows) console.log(`| ${name} | ${kb(turns[0].bytes)} | ${kb(turns.at(-1)!.bytes)} | ${kb(total(turns))} | ${opening ? kb(opening) : '-'} | ${ttft(turns)} |`);
} finally {
  await proxy.stop();
  await patchbay.close();
  await emulator.close();
  rmSync(dataDir, { recursive: true, force: true });
}
