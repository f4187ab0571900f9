import { randomBytes } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TokenCounter } from '../../core/tokens/token-counter.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { PATIENT_COUNT_BUDGET_MS, startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * Token counting must never hold up other requests (issue 13): it runs on a worker thread. Every
 * prompt below is sent through the real server to a model with a small context window, so the
 * prompt's bytes exceed the window and the count path runs. The old code tokenized these on the
 * main thread and stalled for seconds to minutes.
 *
 * How long the event loop stalls per request is a performance figure, measured by
 * `node bench/event-loop-lag.ts` (bench/README.md), never asserted here: the machines are shared.
 * What is asserted is the behaviour: the answers, and other requests answered while a count runs.
 */
const WINDOW = 4096;
const KEYS = { OPENAI_API_KEY: 'sk-test-event-loop' };

const KB = 1024;
function minifiedCode(size: number): string {
  let code = '';
  for (let i = 0; code.length < size; i++) code += `function f${i}(a,b){return a*${i}+b.map(x=>x[${i % 7}]).join("${i % 10}")};var v${i}=f${i}(${i},[]);`;
  return code.slice(0, size);
}
function mixedCjk(size: number): string {
  const phrase = '東京は日本の首都です。서울은 한국의 수도입니다。北京是中国的首都。 Tokyo and Seoul 2024! ';
  return phrase.repeat(Math.ceil(size / Buffer.byteLength(phrase))).slice(0, size / 3);
}

const corpus: { name: string; text: string }[] = [
  { name: "100 KB of 'a'", text: 'a'.repeat(100 * KB) },
  { name: "600 KB of 'a'", text: 'a'.repeat(600 * KB) },
  { name: "1 MB of 'x'", text: 'x'.repeat(1024 * KB) },
  { name: '140 KB of spaces', text: ' '.repeat(140 * KB) },
  { name: '140 KB of newlines', text: '\n'.repeat(140 * KB) },
  { name: '300 KB base64 blob', text: randomBytes(225 * KB).toString('base64') },
  { name: '200 KB minified code', text: minifiedCode(200 * KB) },
  { name: '200 KB mixed CJK', text: mixedCjk(200 * KB) },
];

describe('token counting never blocks the event loop', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  let pb: TestPatchbay;

  beforeAll(async () => {
    const baseUrl = `${await openai.start()}/v1`;
    pb = await startPatchbay({
      config: { providers: { openai: { baseUrl, models: [{ id: 'gpt-4o-mini', contextWindow: WINDOW }] } } },
      env: KEYS,
    });
    // The first count starts the counting thread; warm it up so each case measures the steady state.
    await post('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: 'warm up '.repeat(3000) }] });
  });
  afterAll(async () => {
    await pb?.stop();
    await openai.close();
  });

  async function post(path: string, body: unknown): Promise<{ status: number; json: { error?: { code: string; message: string; param: string } } }> {
    const response = await fetch(`${pb.patchbay.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as never };
  }

  /** Sends one request (twice: the first parse of a 60,000-element array is compiled by V8, once per process). */
  async function answered(path: string, body: unknown) {
    await post(path, body);
    return post(path, body);
  }

  for (const { name, text } of corpus) {
    it(`chat with ${name}: answered (200 or a 400 context_length_exceeded)`, async () => {
      const { status, json } = await answered('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: text }] });
      if (status !== 200) expect(json.error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
      else expect(status).toBe(200);
    });
  }

  it('a prompt whose lower bound exceeds every window is refused by arithmetic, saying "at least"', async () => {
    const { status, json } = await answered('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(1024 * KB) }] });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
    // 1 MiB + 1 separator byte, at most 128 bytes a token (o200k's longest token).
    expect(json.error!.message).toContain(`at least ${Math.ceil((1024 * KB + 1) / 128)} tokens`);
  });

  it('ordinary text near the window is still counted exactly (gpt-tokenizer o200k), and refused when it does not fit', async () => {
    const prose = 'The committee reviewed the proposal, asked for revisions, and scheduled a second reading next week. '.repeat(260);
    const exact = countTokens(prose);
    expect(exact).toBeGreaterThan(WINDOW);
    const { status, json } = await answered('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prose }] });
    expect(status).toBe(400);
    expect(json.error!.message).toContain(`about ${exact} tokens`);
    const fits = await post('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: prose.slice(0, prose.length / 2) }] });
    expect(fits.status).toBe(200);
  });

  it('/v1/embeddings with 60,000 token ids counts the ids (60000 tokens) without tokenizing them', async () => {
    const ids = Array.from({ length: 60_000 }, (_, i) => i % 1000);
    const { status, json } = await answered('/v1/embeddings', { model: 'text-embedding-3-small', input: ids });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: 'context_length_exceeded', param: 'input' });
    expect(json.error!.message).toContain('60000 tokens');
    // 8,000 ids fit the 8,192-token window: Patchbay passes them on (this emulator then refuses ids, which is not the point here).
    const before = openai.count('/embeddings');
    const small = await answered('/v1/embeddings', { model: 'text-embedding-3-small', input: [ids.slice(0, 4000), ids.slice(0, 4000)] });
    expect(small.json.error?.code).not.toBe('context_length_exceeded');
    expect(openai.count('/embeddings')).toBe(before + 2);
  });

  it('/v1/completions with 60,000 token ids counts the ids without tokenizing them', async () => {
    const ids = Array.from({ length: 60_000 }, (_, i) => i % 1000);
    const { status, json } = await answered('/v1/completions', { model: 'openai/gpt-3.5-turbo-instruct', max_tokens: 8, prompt: ids });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: 'context_length_exceeded', param: 'prompt' });
    expect(json.error!.message).toContain('60000 tokens');
  });

  it('answers other requests while a long prompt is being counted: they do not wait for the count', async () => {
    // The real counting thread and tokenizer, with a budget long enough that the count runs to its
    // end, and the text counted eight times over (about a second of the thread's work when quiet), so
    // the count is long next to a small request however loaded the machine is.
    const patient = new TokenCounter({ budgetMs: PATIENT_COUNT_BUDGET_MS });
    await patient.count('warm up');
    const count = TokenCounter.prototype.count;
    let countStarted!: () => void;
    const started = new Promise<void>((resolve) => (countStarted = resolve));
    let countEnded = false;
    const spy = vi.spyOn(TokenCounter.prototype, 'count').mockImplementation((text: string, bytes?: number) => {
      countStarted();
      let counted = count.call(patient, text, bytes);
      for (let i = 1; i < 8; i++) counted = counted.then(() => count.call(patient, text, bytes));
      return counted.then((result) => ((countEnded = true), result));
    });
    try {
      const prose = 'The committee reviewed the proposal, asked for revisions, and scheduled a second reading next week. '.repeat(2500);
      const pending = post('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: prose }] });
      await Promise.race([started, pending.then(() => Promise.reject(new Error('answered without counting the prompt on the counting thread')))]);
      // While it counts: five requests one after another, each answered before the count ends.
      for (let i = 0; i < 5; i++) {
        const models = await fetch(`${pb.patchbay.url}/v1/models`, { headers: { authorization: `Bearer ${pb.key}` } });
        expect(models.status).toBe(200);
        expect(countEnded, `request ${i + 1} waited for the count`).toBe(false);
      }
      const { status, json } = await pending;
      expect(countEnded).toBe(true);
      expect(status).toBe(400);
      expect(json.error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
    } finally {
      spy.mockRestore();
      await patient.close();
    }
  });
});
