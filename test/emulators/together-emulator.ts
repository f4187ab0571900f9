import type { ServerResponse } from 'node:http';
import { sendJson, writeSse, type EmulatorContext, type Fault } from './emulator-server.ts';
import { cutAtStop, randomAlnum } from './emulator-common.ts';
import { OpenAiEmulator, chatPromptTokens, countTokens, embeddingFor, limitText, replyText, splitDeltas } from './openai-emulator.ts';

/**
 * Together AI's flavour of the OpenAI wire (../shared/reference/provider-wire.md §5, §7.9), from
 * Together's public docs, SDK types and recorded responses quoted in public threads, not from
 * Patchbay's adapter:
 *
 * - Base path `/v1`: `POST /chat/completions`, legacy `POST /completions` (for its chat models,
 *   object `text.completion` / `completion.chunk`), `POST /embeddings`, `GET /models` (a bare array).
 * - Natural end of a Llama model is `finish_reason: "eos"` (other models say "stop"; a stop sequence
 *   always says "stop").
 * - Streams: every chunk has `usage: null` except the one carrying `finish_reason`, which has the
 *   usage; there is no separate usage chunk, with or without stream_options. Deltas carry `token_id`.
 * - Embeddings: float arrays only (`encoding_format` is ignored, as the API did for years),
 *   `dimensions` and `user` are rejected with 400, and the response has no `usage`.
 * - Error bodies: OpenAI's four fields plus a top-level `id`.
 * - Token counts: prompt = chatPromptTokens (the OpenAI emulator's formula: 3 + Σ(words + 3) per
 *   message); completion = words of the reply (tool call: words of the JSON arguments + 5); legacy
 *   completions: prompt = words of the prompt.
 */

/** The prompt-token formula (same as OpenAI's emulator), re-exported so tests can predict usage. */
export { chatPromptTokens } from './openai-emulator.ts';

export const TOGETHER_CHAT_MODELS: Record<string, { created: number; context: number; organization: string; price: [number, number] }> = {
  'meta-llama/Llama-3.3-70B-Instruct-Turbo': { created: 1733443200, context: 131072, organization: 'Meta', price: [0.88, 0.88] },
  'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo': { created: 1721692800, context: 131072, organization: 'Meta', price: [0.18, 0.18] },
  'openai/gpt-oss-120b': { created: 1754438400, context: 131072, organization: 'OpenAI', price: [0.15, 0.6] },
  'openai/gpt-oss-20b': { created: 1754438400, context: 128000, organization: 'OpenAI', price: [0.05, 0.2] },
  'deepseek-ai/DeepSeek-V3.1': { created: 1755734400, context: 128000, organization: 'DeepSeek', price: [0.6, 1.7] },
};
export const TOGETHER_EMBEDDING_MODELS: Record<string, number> = { 'BAAI/bge-base-en-v1.5': 768 };

/** Models whose natural end of generation is reported as `eos`. */
export const TOGETHER_EOS_MODELS = ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo'];

const hexId = () => randomAlnum(16, '0123456789abcdef');

export class TogetherEmulator extends OpenAiEmulator {
  constructor(options: { apiKey: string }) {
    const chat = Object.keys(TOGETHER_CHAT_MODELS);
    super({ apiKey: options.apiKey, chatModels: chat, completionModels: chat, embeddingDimensions: TOGETHER_EMBEDDING_MODELS });
  }

  protected override rateLimitHeaders(): Record<string, string> {
    return { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '1', 'x-tokenlimit-limit': '200000', 'x-tokenlimit-remaining': '199900' };
  }

  /** OpenAI's error body plus Together's top-level `id` (§5.6). */
  protected override error(res: ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}): void {
    sendJson(res, status, { id: `${hexId()}-emulator`, error: { message, type, param, code } }, { ...this.rateLimitHeaders(), ...headers });
  }

  protected override faultError(res: ServerResponse, fault: Fault): void {
    const status = fault.status!;
    const presets: Record<number, [string, string, string | null]> = {
      400: ['Invalid request (injected).', 'invalid_request_error', null],
      401: ['Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.', 'invalid_request_error', 'invalid_api_key'],
      404: ['Unable to access model. Please visit https://api.together.ai/models to view the list of supported models.', 'invalid_request_error', 'model_not_found'],
      429: ['You have been rate limited: your request rate is above your current dynamic rate limit. Please try again later.', 'dynamic_request_limited', null],
      500: ['Internal server error', 'server_error', null],
      503: ['The server is overloaded or not ready yet.', 'server_error', null],
    };
    const [message, type, code] = presets[status] ?? [`HTTP ${status} (injected).`, status >= 500 ? 'server_error' : 'invalid_request_error', null];
    const retryAfter: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
    this.error(res, status, fault.message ?? message, type, code, null, { ...retryAfter, ...fault.headers });
  }

  protected override streamErrorEvent = (): string => `data: ${JSON.stringify({ error: { message: 'Internal server error', type: 'server_error', param: null, code: null } })}\n\n`;

  protected override async handle(ctx: EmulatorContext): Promise<void> {
    const { req, res, path, fault } = ctx;
    if (!this.acceptsBearer(req.headers.authorization)) {
      return this.error(res, 401, 'Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.', 'invalid_request_error', 'invalid_api_key');
    }
    if (fault?.status) return this.faultError(res, fault);
    const route = path.split('?')[0];
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    if (req.method === 'GET' && route === '/v1/models') return this.listModels(res);
    if (req.method === 'POST' && route === '/v1/chat/completions') return this.chat(res, body, fault);
    if (req.method === 'POST' && route === '/v1/completions') return this.completions(res, body, fault);
    if (req.method === 'POST' && route === '/v1/embeddings') return this.embeddings(res, body);
    return this.error(res, 404, `Not found: ${req.method} ${route}`, 'invalid_request_error', 'not_found');
  }

  /** A bare JSON array, not `{object:"list",data}` (§5.5). */
  protected override listModels(res: ServerResponse): void {
    const chat = Object.entries(TOGETHER_CHAT_MODELS).map(([id, m]) => ({
      id, object: 'model', created: m.created, type: 'chat', display_name: id.split('/')[1], organization: m.organization, context_length: m.context,
      pricing: { hourly: 0, input: m.price[0], output: m.price[1], base: 0, finetune: 0 },
    }));
    const embeddings = Object.keys(TOGETHER_EMBEDDING_MODELS).map((id) => ({
      id, object: 'model', created: 1695081600, type: 'embedding', display_name: 'BAAI-Bge-Base-1.5', organization: 'BAAI', context_length: 512,
      pricing: { hourly: 0, input: 0.008, output: 0, base: 0, finetune: 0 },
    }));
    sendJson(res, 200, [...chat, ...embeddings], this.rateLimitHeaders());
  }

  protected override checkModel(res: ServerResponse, model: unknown, known: string[]): boolean {
    if (typeof model === 'string' && model && !known.includes(model)) {
      this.error(res, 404, `Unable to access model ${model}. Please visit https://api.together.ai/models to view the list of supported models.`, 'invalid_request_error', 'model_not_found');
      return false;
    }
    return super.checkModel(res, model, known);
  }

  /** `eos` for a Llama model's natural end, `stop` otherwise (and always for a matched stop sequence). */
  protected finishFor(model: string, finish: string, text: string, stop: unknown): string {
    const stops = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? (stop as string[]) : [];
    const stopped = cutAtStop(text, stops).matched !== null;
    return finish === 'stop' && !stopped && TOGETHER_EOS_MODELS.includes(model) ? 'eos' : finish;
  }

  protected override async chat(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined): Promise<void> {
    if (!this.checkModel(res, body.model, this.options.chatModels)) return;
    if (!Array.isArray(body.messages) || body.messages.length === 0) return this.error(res, 400, 'messages: must contain at least one message', 'invalid_request_error', null, 'messages');
    const n = (body.n as number | undefined) ?? 1;
    const plan = this.chatChoicesFor(body);
    const model = body.model as string;
    const finish = this.finishFor(model, plan.finish, replyText(plan.messages), body.stop);
    const id = hexId();
    const created = Math.floor(Date.now() / 1000);
    const promptTokens = chatPromptTokens(plan.messages);
    const completionTokens = (plan.toolCall ? countTokens(plan.toolCall.arguments) + 5 : countTokens(plan.text)) * n;
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, ...this.cachedDetails(body, plan.messages) };
    const callId = () => `call_${randomAlnum(24, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
    if (body.stream !== true) {
      const choices = Array.from({ length: n }, (_, index) => ({
        finish_reason: finish,
        seed: 1234567890123456 + index,
        logprobs: null,
        index,
        message: plan.toolCall
          ? { role: 'assistant', content: null, tool_calls: [{ index: 0, id: callId(), type: 'function', function: plan.toolCall }] }
          : { role: 'assistant', content: plan.text, tool_calls: [] },
      }));
      return sendJson(res, 200, { id, object: 'chat.completion', created, model, prompt: [], choices, usage }, this.rateLimitHeaders());
    }
    const chunk = (index: number, delta: Record<string, unknown>, finishReason: string | null, chunkUsage: unknown = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index, delta, finish_reason: finishReason, logprobs: null }], usage: chunkUsage })}\n\n`;
    const events: string[] = [];
    for (let i = 0; i < n; i++) {
      if (plan.toolCall) {
        const args = plan.toolCall.arguments;
        const middle = Math.ceil(args.length / 2);
        events.push(chunk(i, { role: 'assistant', content: null, tool_calls: [{ index: 0, id: callId(), type: 'function', function: { name: plan.toolCall.name, arguments: '' } }] }, null));
        for (const part of [args.slice(0, middle), args.slice(middle)]) events.push(chunk(i, { role: 'assistant', tool_calls: [{ index: 0, function: { arguments: part } }] }, null));
      } else {
        splitDeltas(plan.text).forEach((content, k) => events.push(chunk(i, { role: 'assistant', content, token_id: 1000 + k }, null)));
      }
      events.push(chunk(i, { role: 'assistant', content: '', token_id: 128009 }, finish, i === n - 1 ? usage : null));
    }
    events.push('data: [DONE]\n\n');
    await writeSse(res, events, { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: this.streamErrorEvent, headers: this.rateLimitHeaders() });
  }

  /** Legacy completions for the chat models: a single string prompt, `text.completion` / `completion.chunk` (§5.3). */
  protected override async completions(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined): Promise<void> {
    if (!this.checkModel(res, body.model, this.options.completionModels)) return;
    if (typeof body.prompt !== 'string') return this.error(res, 400, 'prompt: Input should be a valid string', 'invalid_request_error', null, 'prompt');
    const model = body.model as string;
    const full = ` and then the story continues after: ${body.prompt}`;
    const out = limitText(full, body.max_tokens as number | undefined, body.stop);
    const finish = this.finishFor(model, out.finish, full, body.stop);
    const id = hexId();
    const created = Math.floor(Date.now() / 1000);
    const promptTokens = countTokens(body.prompt);
    const usage = { prompt_tokens: promptTokens, completion_tokens: countTokens(out.text), total_tokens: promptTokens + countTokens(out.text) };
    if (body.stream !== true) {
      const choices = [{ index: 0, text: out.text, finish_reason: finish, logprobs: null, seed: 1234567890123456 }];
      return sendJson(res, 200, { id, object: 'text.completion', created, model, prompt: [], choices, usage }, this.rateLimitHeaders());
    }
    const chunk = (text: string, k: number, finishReason: string | null, chunkUsage: unknown) =>
      `data: ${JSON.stringify({
        id, object: 'completion.chunk', created, model,
        choices: [{ index: 0, text, logprobs: null, finish_reason: finishReason, delta: { token_id: 1000 + k, content: text } }],
        token: { id: 1000 + k, text, logprob: -0.1, special: false },
        usage: chunkUsage,
      })}\n\n`;
    const deltas = splitDeltas(out.text);
    const events = deltas.map((text, k) => chunk(text, k, k === deltas.length - 1 ? finish : null, k === deltas.length - 1 ? usage : null));
    if (deltas.length === 0) events.push(chunk('', 0, finish, usage));
    events.push('data: [DONE]\n\n');
    await writeSse(res, events, { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: this.streamErrorEvent, headers: this.rateLimitHeaders() });
  }

  protected override embeddings(res: ServerResponse, body: Record<string, unknown>): void {
    const model = body.model as string;
    const dimensions = TOGETHER_EMBEDDING_MODELS[model];
    if (!dimensions) {
      return this.error(res, 404, `Unable to access model ${String(model)}. Please visit https://api.together.ai/models to view the list of supported models.`, 'invalid_request_error', 'model_not_found');
    }
    const unrecognized = ['dimensions', 'user'].filter((k) => body[k] !== undefined);
    if (unrecognized.length > 0) return this.error(res, 400, `Unrecognized request arguments supplied: ${unrecognized.join(', ')}`, 'invalid_request_error', null);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((i) => typeof i !== 'string' || i === '')) {
      return this.error(res, 400, 'input: Input should be a valid string or a list of strings', 'invalid_request_error', null, 'input');
    }
    const data = (inputs as string[]).map((input, index) => ({ object: 'embedding', embedding: embeddingFor(input, dimensions), index }));
    sendJson(res, 200, { object: 'list', data, model }, this.rateLimitHeaders());
  }
}
