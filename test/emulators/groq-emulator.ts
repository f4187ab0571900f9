import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson, writeSse, type EmulatorContext, type Fault } from './emulator-server.ts';
import { randomAlnum } from './emulator-common.ts';
import { OpenAiEmulator, chatPromptTokens, countTokens, splitDeltas } from './openai-emulator.ts';

/**
 * Groq's flavour of the OpenAI wire (../shared/reference/provider-wire.md §4, §7.9), from Groq's
 * public docs and SDK types, not from Patchbay's adapter:
 *
 * - Base path `/openai/v1`: `POST /chat/completions`, `GET /models`, `GET /models/{id}`; no legacy
 *   `/completions` and no embeddings (unknown URL, 404).
 * - 400 for `n` other than 1, `logprobs`, `logit_bias`, `top_logprobs`, and `messages[].name`.
 * - Streams: first chunk carries `x_groq.id`; the chunk with `finish_reason` carries usage under
 *   `x_groq.usage` and top-level `usage` (without stream_options); with
 *   stream_options.include_usage an extra OpenAI-style usage chunk (`choices: []`) follows.
 *   Tool calls arrive whole in one delta, with short random ids (not `call_…`). gpt-oss models
 *   show their reasoning in `reasoning` (message / delta) first.
 * - Error bodies `{"error":{"message","type","code"?}}` without `param`; x-ratelimit-* headers
 *   (requests per day, tokens per minute), retry-after on 429.
 * - Token counts: prompt = chatPromptTokens (the OpenAI emulator's formula: 3 + Σ(words + 3) per
 *   message); completion = words of the reply (tool call: words of the JSON arguments + 5).
 */

/** The prompt-token formula (same as OpenAI's emulator), re-exported so tests can predict usage. */
export { chatPromptTokens } from './openai-emulator.ts';

export const GROQ_MODELS: Record<string, { ownedBy: string; created: number; contextWindow: number; maxCompletionTokens: number }> = {
  'llama-3.3-70b-versatile': { ownedBy: 'Meta', created: 1733447754, contextWindow: 131072, maxCompletionTokens: 32768 },
  'llama-3.1-8b-instant': { ownedBy: 'Meta', created: 1693721698, contextWindow: 131072, maxCompletionTokens: 131072 },
  'openai/gpt-oss-120b': { ownedBy: 'OpenAI', created: 1754408224, contextWindow: 131072, maxCompletionTokens: 65536 },
  'openai/gpt-oss-20b': { ownedBy: 'OpenAI', created: 1754407957, contextWindow: 131072, maxCompletionTokens: 65536 },
};

const REJECTED_FIELDS = ['logprobs', 'logit_bias', 'top_logprobs'];

export class GroqEmulator extends OpenAiEmulator {
  constructor(options: { apiKey: string; moreApiKeys?: string[] }) {
    super({ apiKey: options.apiKey, moreApiKeys: options.moreApiKeys, chatModels: Object.keys(GROQ_MODELS), completionModels: [], embeddingDimensions: {} });
  }

  protected override rateLimitHeaders(): Record<string, string> {
    return {
      'x-request-id': `req_${randomAlnum(26, '0123456789abcdefghjkmnpqrstvwxyz')}`,
      'x-groq-region': 'us-east-1',
      'x-ratelimit-limit-requests': '14400',
      'x-ratelimit-limit-tokens': '18000',
      'x-ratelimit-remaining-requests': '14399',
      'x-ratelimit-remaining-tokens': '17997',
      'x-ratelimit-reset-requests': '6s',
      'x-ratelimit-reset-tokens': '10ms',
    };
  }

  /** Groq's error body: message and type, code when there is one, never `param` (§4.5). */
  protected override error(res: ServerResponse, status: number, message: string, type: string, code: string | null, _param: string | null = null, headers: Record<string, string> = {}): void {
    sendJson(res, status, { error: { message, type, ...(code ? { code } : {}) } }, { ...this.rateLimitHeaders(), ...headers });
  }

  protected override faultError(res: ServerResponse, fault: Fault): void {
    const status = fault.status!;
    const presets: Record<number, [string, string, string | null]> = {
      400: ['Invalid request (injected).', 'invalid_request_error', null],
      401: ['Invalid API Key', 'invalid_request_error', 'invalid_api_key'],
      404: ['The model `x` does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found'],
      413: ['Request too large for model `llama-3.3-70b-versatile` in organization `org_emulator` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Requested 20000, please reduce your message size and try again.', 'tokens', 'rate_limit_exceeded'],
      429: ['Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_emulator` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Used 4437, Requested 9854. Please try again in 2s.', 'tokens', 'rate_limit_exceeded'],
      500: ['Internal Server Error', 'internal_server_error', null],
      503: ['Service Unavailable', 'internal_server_error', null],
    };
    const [message, type, code] = presets[status] ?? [`HTTP ${status} (injected).`, status >= 500 ? 'internal_server_error' : 'invalid_request_error', null];
    const retryAfter: Record<string, string> = status === 429 || fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds ?? 2) } : {};
    this.error(res, status, fault.message ?? message, type, code, null, { ...retryAfter, ...fault.headers });
  }

  protected override streamErrorEvent = (): string => `data: ${JSON.stringify({ error: { message: 'Internal Server Error', type: 'internal_server_error' } })}\n\n`;

  protected override async handle(ctx: EmulatorContext): Promise<void> {
    const { req, res, path, fault } = ctx;
    if (!this.acceptsBearer(req.headers.authorization)) return this.error(res, 401, 'Invalid API Key', 'invalid_request_error', 'invalid_api_key');
    if (fault?.status) return this.faultError(res, fault);
    const route = path.split('?')[0];
    if (req.method === 'GET' && route === '/openai/v1/models') return this.listModels(res);
    if (req.method === 'GET' && route.startsWith('/openai/v1/models/')) {
      const id = decodeURIComponent(route.slice('/openai/v1/models/'.length));
      if (!GROQ_MODELS[id]) return this.error(res, 404, `The model \`${id}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
      return sendJson(res, 200, this.modelObject(id), this.rateLimitHeaders());
    }
    if (req.method === 'POST' && route === '/openai/v1/chat/completions') return this.chat(res, (ctx.body ?? {}) as Record<string, unknown>, fault);
    return this.error(res, 404, `Unknown request URL: ${req.method} ${route}. Please check the URL for typos, or see the docs at https://console.groq.com/docs/`, 'invalid_request_error', 'unknown_url');
  }

  protected modelObject(id: string): Record<string, unknown> {
    const m = GROQ_MODELS[id];
    return { id, object: 'model', created: m.created, owned_by: m.ownedBy, active: true, context_window: m.contextWindow, public_apps: null, max_completion_tokens: m.maxCompletionTokens };
  }

  protected override listModels(res: ServerResponse): void {
    sendJson(res, 200, { object: 'list', data: Object.keys(GROQ_MODELS).map((id) => this.modelObject(id)) }, this.rateLimitHeaders());
  }

  /** What Groq rejects before generating (§4.2). */
  protected rejection(body: Record<string, unknown>): string | null {
    if (body.n !== undefined && body.n !== null && body.n !== 1) return "'n' : number must be at most 1";
    for (const name of REJECTED_FIELDS) if (body[name] !== undefined && body[name] !== null) return `property '${name}' is unsupported`;
    const named = (body.messages as { name?: unknown }[]).findIndex((m) => m && m.name !== undefined);
    if (named !== -1) return `'messages.${named}' : property 'name' is unsupported`;
    return null;
  }

  protected override async chat(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined): Promise<void> {
    if (!this.checkModel(res, body.model, this.options.chatModels)) return;
    if (!Array.isArray(body.messages) || body.messages.length === 0) return this.error(res, 400, "'messages' : minimum number of items is 1", 'invalid_request_error', null);
    const rejected = this.rejection(body);
    if (rejected) return this.error(res, 400, rejected, 'invalid_request_error', null);
    const plan = this.chatChoicesFor(body);
    const id = `chatcmpl-${randomUUID()}`;
    const requestId = `req_${randomAlnum(26, '0123456789abcdefghjkmnpqrstvwxyz')}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model as string;
    const promptTokens = chatPromptTokens(plan.messages);
    const completionTokens = plan.toolCall ? countTokens(plan.toolCall.arguments) + 5 : countTokens(plan.text);
    const usage = {
      queue_time: 0.012,
      prompt_tokens: promptTokens,
      prompt_time: 0.002,
      completion_tokens: completionTokens,
      completion_time: completionTokens / 1000,
      total_tokens: promptTokens + completionTokens,
      total_time: 0.002 + completionTokens / 1000,
      ...this.cachedDetails(body, plan.messages),
    };
    const toolCall = plan.toolCall ? { id: randomAlnum(9, 'abcdefghijklmnopqrstuvwxyz0123456789'), type: 'function', function: plan.toolCall } : null;
    const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_emulator' };

    // gpt-oss reasons and shows it in `reasoning` unless include_reasoning is false (Groq's reasoning docs); unsigned, as Groq has no signatures.
    const reasoning = model.startsWith('openai/gpt-oss') && body.include_reasoning !== false ? 'Thinking about the request.' : null;
    if (body.stream !== true) {
      const message = { ...(toolCall ? { role: 'assistant', tool_calls: [toolCall] } : { role: 'assistant', content: plan.text }), ...(reasoning ? { reasoning } : {}) };
      return sendJson(
        res,
        200,
        { ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finish }], usage, usage_breakdown: null, x_groq: { id: requestId, seed: 167346302 }, service_tier: 'on_demand' },
        this.rateLimitHeaders(),
      );
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
    const events = [chunk({ role: 'assistant', content: toolCall ? null : '' }, null, { x_groq: { id: requestId, seed: 689520654 } })];
    if (reasoning) events.push(chunk({ reasoning }, null));
    if (toolCall) events.push(chunk({ tool_calls: [{ ...toolCall, index: 0 }] }, null));
    else for (const content of splitDeltas(plan.text)) events.push(chunk({ content }, null));
    events.push(chunk({}, plan.finish, { x_groq: { id: requestId, usage }, usage }));
    if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true) {
      events.push(`data: ${JSON.stringify({ ...base, choices: [], usage, x_groq: { id: requestId, usage } })}\n\n`);
    }
    events.push('data: [DONE]\n\n');
    await writeSse(res, events, { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: this.streamErrorEvent, headers: this.rateLimitHeaders() });
  }
}
