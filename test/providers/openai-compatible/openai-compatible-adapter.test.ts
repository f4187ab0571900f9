import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultEndpoint } from '../../../core/catalog/load-catalog.ts';
import type { ResolvedProvider } from '../../../core/config/load-config.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../../core/protocols/openai/request-schemas.ts';
import { decodeFloat32Base64 } from '../../../core/providers/encode-float32-base64.ts';
import { Adjustments } from '../../../core/protocols/neutral/adjustments.ts';
import { OpenAiCompatibleAdapter } from '../../../core/providers/openai-compatible/openai-compatible-adapter.ts';
import type { StreamReply, UpstreamCall } from '../../../core/providers/provider-adapter.ts';
import { GROQ_TOOL_STREAM, TOGETHER_CHAT_STREAM, togetherCompletion } from './wire-fixtures.ts';

/** A loopback upstream answering canned bodies, recording what the adapter sent. */
interface Seen {
  path: string;
  raw: string;
  body: Record<string, unknown>;
}
type Answer = (seen: Seen) => { status?: number; type?: 'json' | 'sse'; body: string | string[] };

let server: Server;
let baseUrl: string;
let answer: Answer;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (piece: Buffer) => (raw += piece.toString()));
    req.on('end', () => {
      const request: Seen = { path: req.url ?? '', raw, body: JSON.parse(raw) as Record<string, unknown> };
      seen.push(request);
      const reply = answer(request);
      if (reply.type === 'sse') {
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream' });
        res.end((reply.body as string[]).map((data) => `data: ${data}\n\n`).join(''));
      } else {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(reply.body as string);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => (seen.length = 0));

const adapter = new OpenAiCompatibleAdapter(2_000);

function call(provider: string, model: string, options: { builtin?: boolean; nativeCompletions?: boolean; dimensions?: number } = {}): UpstreamCall {
  const resolved: ResolvedProvider = { name: provider, protocol: 'openai', baseUrl, enabled: true, headers: {}, apiKeyEnv: undefined, builtin: options.builtin ?? true, requiresKey: false, models: [], keyOrder: 'ordered' };
  const endpoint = { ...defaultEndpoint(provider, model), nativeCompletions: options.nativeCompletions ?? false, dimensions: options.dimensions };
  return { endpoint, provider: resolved, apiKey: 'sk-upstream', signal: new AbortController().signal, firstByteTimeoutMs: 2_000 };
}

async function drain(reply: StreamReply): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let next = await reply.chunks.next(); !next.done; next = await reply.chunks.next()) out.push(JSON.parse(next.value) as Record<string, unknown>);
  return out;
}

const chatRequest = { model: 'alias', messages: [{ role: 'developer', content: 'Be terse.' }, { role: 'user', content: 'hi', name: 'bob' }] } as ChatRequest;

describe('OpenAiCompatibleAdapter over loopback HTTP', () => {
  it('returns an OpenAI answer byte for byte, even with spacing and fields Patchbay does not know', async () => {
    const upstream = '{ "id": "chatcmpl-1",\n  "object": "chat.completion", "choices": [{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop","logprobs":null}],\n "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}, "service_tier": "default" }';
    answer = () => ({ body: upstream });
    const reply = await adapter.chat(chatRequest, call('openai', 'gpt-4o'));
    expect(reply.body).toBe(upstream);
    expect(reply.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    expect(seen[0].body).toEqual({ ...chatRequest, model: 'gpt-4o' });
  });

  it('sends Together a developer message as system and maps eos in the answer', async () => {
    answer = () => ({ body: JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'eos', logprobs: null }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) });
    const reply = await adapter.chat({ ...chatRequest, max_completion_tokens: 5 }, call('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'));
    expect(JSON.parse(reply.body).choices[0].finish_reason).toBe('stop');
    expect(seen[0].body).toMatchObject({ model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', max_tokens: 5, messages: [{ role: 'system' }, { role: 'user', name: 'bob' }] });
  });

  it('streams Groq with usage read from x_groq and sent once, and never sends name', async () => {
    answer = () => ({ type: 'sse', body: [...GROQ_TOOL_STREAM, '[DONE]'] });
    const reply = await adapter.streamChat({ ...chatRequest, stream: true }, call('groq', 'llama-3.3-70b-versatile'), true);
    const chunks = await drain(reply);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 225 } });
    expect(reply.usage()).toMatchObject({ prompt_tokens: 210, completion_tokens: 15 });
    expect(seen[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'hi' }] });
    expect(JSON.stringify(seen[0].body.messages)).not.toContain('name');
  });

  it('streams Together without stream_options and still records usage', async () => {
    answer = () => ({ type: 'sse', body: [...TOGETHER_CHAT_STREAM, '[DONE]'] });
    const reply = await adapter.streamChat({ ...chatRequest, stream: true, stream_options: { include_usage: true } }, call('together', 'm'), false);
    const chunks = await drain(reply);
    expect(chunks).toHaveLength(2);
    expect(reply.usage()).toEqual({ prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 });
    expect(seen[0].body).not.toHaveProperty('stream_options');
  });

  it('ends a stream without [DONE] with an error, never silently', async () => {
    answer = () => ({ type: 'sse', body: GROQ_TOOL_STREAM.slice(0, 2) });
    const reply = await adapter.streamChat({ ...chatRequest, stream: true }, call('groq', 'm'), false);
    await expect(drain(reply)).rejects.toMatchObject({ kind: 'stream', retryable: true });
  });

  it('fans Together completions out per prompt and merges them into one text_completion', async () => {
    answer = (s) => ({ body: togetherCompletion(s.body.prompt === 'Once upon' ? ' a time' : ' far away', { prompt_tokens: 2, completion_tokens: 3 }) });
    const request = { model: 'alias', prompt: ['Once upon', 'In a galaxy'], max_tokens: 3 } as CompletionRequest;
    const reply = await adapter.complete(request, call('together', 'm', { nativeCompletions: true }));
    const body = JSON.parse(reply.body);
    expect(seen.map((s) => s.body.prompt).sort()).toEqual(['In a galaxy', 'Once upon']);
    expect(body.object).toBe('text_completion');
    expect(body.choices).toEqual([
      { text: ' a time', index: 0, logprobs: null, finish_reason: 'stop' },
      { text: ' far away', index: 1, logprobs: null, finish_reason: 'stop' },
    ]);
    expect(reply.usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
  });

  it('streams Together completions prompt after prompt as one OpenAI stream', async () => {
    const chunk = (id: string, text: string, last: boolean) =>
      JSON.stringify({ id, object: 'completion.chunk', created: 5, model: 'm', token: { id: 1, text, logprob: -1, special: false }, choices: [{ index: 0, text, delta: { token_id: 1, content: text } }], finish_reason: last ? 'eos' : null, usage: last ? { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } : null });
    answer = (s) => ({ type: 'sse', body: [chunk(String(s.body.prompt), ` ${String(s.body.prompt).length}`, true), '[DONE]'] });
    const request = { model: 'alias', prompt: ['ab', 'abc'], stream: true } as CompletionRequest;
    const reply = await adapter.streamComplete(request, call('together', 'm', { nativeCompletions: true }), true);
    const chunks = await drain(reply);
    expect(chunks.map((c) => c.choices)).toEqual([[{ text: ' 2', index: 0, logprobs: null, finish_reason: 'stop' }], [{ text: ' 3', index: 1, logprobs: null, finish_reason: 'stop' }], []]);
    expect(chunks.every((c) => c.id === 'ab' && c.object === 'text_completion')).toBe(true);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
    expect(seen.every((s) => s.body.stream === true && !('stream_options' in s.body))).toBe(true);
  });

  it('keeps user-defined endpoints on native /completions with the caller body', async () => {
    answer = () => ({ body: '{"id":"c","object":"text_completion","choices":[{"text":"x","index":0,"logprobs":null,"finish_reason":"length"}]}' });
    const request = { model: 'llama3', prompt: ['a', 'b'] } as CompletionRequest;
    const reply = await adapter.complete(request, call('my-ollama', 'llama3', { builtin: false }));
    expect(reply.body).toBe('{"id":"c","object":"text_completion","choices":[{"text":"x","index":0,"logprobs":null,"finish_reason":"length"}]}');
    expect(seen[0]).toMatchObject({ path: '/v1/completions', body: { prompt: ['a', 'b'] } });
  });

  it('gives a Together embeddings caller base64 and an estimated usage it never sent', async () => {
    answer = () => ({ body: JSON.stringify({ object: 'list', model: 'BAAI/bge-base-en-v1.5', data: [{ object: 'embedding', index: 0, embedding: [0.5, -2] }] }) });
    const request = { model: 'bge-base-en-v1.5', input: 'hello world', encoding_format: 'base64' } as EmbeddingRequest;
    const reply = await adapter.embed(request, call('together', 'BAAI/bge-base-en-v1.5', { dimensions: 768 }));
    const body = JSON.parse(reply.body);
    expect(decodeFloat32Base64(body.data[0].embedding)).toEqual([0.5, -2]);
    expect(body.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    expect(reply.usage).toEqual({ prompt_tokens: 2, completion_tokens: 0, total_tokens: 2 });
    expect(seen[0].body).toEqual({ model: 'BAAI/bge-base-en-v1.5', input: 'hello world' });
  });

  it('maps an upstream error body to a ProviderError', async () => {
    answer = () => ({ status: 400, body: '{"error":{"message":"property \'messages.1.name\' is unsupported","type":"invalid_request_error"}}' });
    await expect(adapter.chat(chatRequest, call('my-proxy', 'm', { builtin: false }))).rejects.toMatchObject({ status: 400, provider: 'my-proxy', retryable: false });
  });
});

describe('fields Groq does not take', () => {
  const chatAnswer = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'llama', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });

  it('are left out of the upstream body and reported only when the caller set them to something that matters', async () => {
    answer = () => ({ body: chatAnswer });
    const noOps = { ...call('groq', 'llama-3.3-70b-versatile'), adjustments: new Adjustments() };
    await adapter.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], frequency_penalty: 0, presence_penalty: 0, logprobs: false, logit_bias: {} } as ChatRequest, noOps);
    expect(seen[0].body).not.toHaveProperty('frequency_penalty');
    expect(noOps.adjustments.dropped).toEqual([]);

    const real = { ...call('groq', 'llama-3.3-70b-versatile'), adjustments: new Adjustments() };
    await adapter.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], frequency_penalty: 0.5, logit_bias: { '50256': -100 } } as ChatRequest, real);
    expect(seen[1].body).not.toHaveProperty('frequency_penalty');
    expect(real.adjustments.dropped.sort()).toEqual(['frequency_penalty', 'logit_bias']);
  });
});
