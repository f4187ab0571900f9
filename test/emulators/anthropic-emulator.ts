import type { IncomingMessage, ServerResponse } from 'node:http';
import { EmulatorServer, sendJson, writeSse, type EmulatorContext, type Fault } from './emulator-server.ts';
import { randomAlnum, rfc3339In } from './emulator-common.ts';
import { splitDeltas } from './openai-emulator.ts';
import { ANTHROPIC_MODELS, anthropicInputTokens, planReply, resolveModel, validateMessagesRequest, type AnthropicPlan } from './anthropic-wire.ts';

/**
 * A loopback stand-in for Anthropic's Messages API (../shared/reference/provider-wire.md §2, §7.9,
 * §8.1), written from the public wire format, not from Patchbay's adapter:
 *
 * - `POST /v1/messages/count_tokens` answering `{"input_tokens"}` with the same count as a Messages call.
 * - Extended thinking (`thinking: {type: "enabled", budget_tokens}`): a signed thinking block first
 *   (thinking_delta then signature_delta when streamed; with `display: "omitted"` the block has no
 *   text, one empty thinking_delta, and a signature that stands for the thinking); a replayed
 *   thinking block whose signature is not the emulator's is refused, as Anthropic does, and while
 *   the model is in a tool loop the assistant turn it continues must begin with its thinking.
 * - `POST /v1/messages`, non-streaming and SSE with named events whose `type` equals the event name:
 *   message_start, then per block content_block_start / ping (once) / content_block_delta… /
 *   content_block_stop, then message_delta (stop_reason, stop_sequence, cumulative usage) and
 *   message_stop. No `[DONE]`.
 * - `GET /v1/models` (paginated with limit/after_id/before_id, newest first), `GET /v1/models/{id}`.
 * - Auth: `x-api-key` or `Authorization: Bearer`, plus an `anthropic-version` header.
 * - Errors `{"type":"error","error":{"type","message"},"request_id"}`; headers `request-id`,
 *   `anthropic-ratelimit-*`, `x-should-retry`, `retry-after` on 429.
 * - Token counts: see anthropicInputTokens in anthropic-wire.ts; output tokens = words of the text
 *   (tool calls: words of the JSON input + 5).
 * - Prompt caching (provider-wire.md §2 usage; ingress-wire.md on cache_control): a `cache_control`
 *   on system blocks caches the prefix up to the last marked block (with the tools, which come
 *   first). The first request with that prefix writes it (`cache_creation_input_tokens`, split into
 *   `cache_creation.ephemeral_5m/1h_input_tokens` by the block's `ttl`), later ones read it
 *   (`cache_read_input_tokens`); `input_tokens` is what is left. Simplified: breakpoints on message
 *   blocks are not modelled, nor the minimum cacheable length, nor expiry.
 */

export { ANTHROPIC_MODELS, anthropicInputTokens, neutralMessages } from './anthropic-wire.ts';

export interface AnthropicEmulatorOptions {
  apiKey: string;
  /** More keys the organisation accepts (a second workspace's key, say). */
  moreApiKeys?: string[];
  /** Accepted `anthropic-version` values (§2.1, §8.1). */
  versions?: string[];
  /** When set, a tool call under tool_choice auto is preceded by this text block (as Claude often does). */
  toolPreamble?: string | null;
}

const ERROR_PRESETS: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'Invalid request (injected).'],
  401: ['authentication_error', 'invalid x-api-key'],
  402: ['billing_error', 'Your credit balance is too low to access the Anthropic API.'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found (injected).'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit. Please try again later.'],
  500: ['api_error', 'Internal server error'],
  504: ['timeout_error', 'Request timed out'],
  529: ['overloaded_error', 'Overloaded'],
};

export class AnthropicEmulator extends EmulatorServer {
  protected readonly options: Required<AnthropicEmulatorOptions>;

  constructor(options: AnthropicEmulatorOptions) {
    super();
    this.options = { versions: ['2023-06-01', '2023-01-01', '2026-10-21'], toolPreamble: null, ...options, moreApiKeys: options.moreApiKeys ?? [] };
  }

  /** `req_011C…`, the shape of Anthropic request ids. */
  static requestId(): string {
    return `req_011C${randomAlnum(20)}`;
  }

  protected headers(requestId: string, extra: Record<string, string> = {}): Record<string, string> {
    const reset = rfc3339In(1);
    const limits: Record<string, string> = { 'request-id': requestId, 'anthropic-organization-id': '5e7d8a1c-0b2f-4c3e-9a6d-0e0d0c0b0a09' };
    for (const [kind, limit] of [['requests', 4000], ['tokens', 2000000], ['input-tokens', 1600000], ['output-tokens', 400000]] as const) {
      limits[`anthropic-ratelimit-${kind}-limit`] = String(limit);
      limits[`anthropic-ratelimit-${kind}-remaining`] = String(kind === 'requests' ? limit - 1 : limit);
      limits[`anthropic-ratelimit-${kind}-reset`] = reset;
    }
    return { ...limits, ...extra };
  }

  protected error(res: ServerResponse, status: number, type: string, message: string, requestId: string, extra: Record<string, string> = {}): void {
    const retry = status === 429 || status >= 500 ? 'true' : 'false';
    sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, this.headers(requestId, { 'x-should-retry': retry, ...extra }));
  }

  protected faultError(res: ServerResponse, fault: Fault, requestId: string): void {
    const status = fault.status!;
    const [type, message] = ERROR_PRESETS[status] ?? [status >= 500 ? 'api_error' : 'invalid_request_error', `HTTP ${status} (injected).`];
    const retryAfter: Record<string, string> = status === 429 || fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds ?? 12) } : {};
    this.error(res, status, type, fault.message ?? message, requestId, { ...retryAfter, ...fault.headers });
  }

  /** Returns the problem with the credentials, or null when they are good. */
  protected authProblem(req: IncomingMessage): [number, string, string] | null {
    const apiKey = req.headers['x-api-key'];
    const authorization = req.headers.authorization;
    if (apiKey !== undefined) {
      if (apiKey !== this.options.apiKey && !this.options.moreApiKeys.includes(String(apiKey))) return [401, 'authentication_error', 'invalid x-api-key'];
    } else if (authorization !== undefined) {
      if (![this.options.apiKey, ...this.options.moreApiKeys].some((key) => authorization === `Bearer ${key}`)) return [401, 'authentication_error', 'Invalid bearer token'];
    } else {
      return [401, 'authentication_error', 'x-api-key header is required'];
    }
    const version = req.headers['anthropic-version'];
    if (version === undefined) return [400, 'invalid_request_error', 'anthropic-version: header is required'];
    if (typeof version !== 'string' || !this.options.versions.includes(version)) return [400, 'invalid_request_error', `anthropic-version: invalid version "${String(version)}"`];
    return null;
  }

  protected async handle(ctx: EmulatorContext): Promise<void> {
    const { req, res, path, fault } = ctx;
    const requestId = AnthropicEmulator.requestId();
    const problem = this.authProblem(req);
    if (problem) return this.error(res, problem[0], problem[1], problem[2], requestId);
    if (fault?.status) return this.faultError(res, fault, requestId);
    const [route, query] = path.split('?');
    if (req.method === 'GET' && route === '/v1/models') return this.listModels(res, new URLSearchParams(query), requestId);
    if (req.method === 'GET' && route.startsWith('/v1/models/')) return this.getModel(res, decodeURIComponent(route.slice('/v1/models/'.length)), requestId);
    if (req.method === 'POST' && route === '/v1/messages') return this.messages(res, ctx.body, fault, requestId, betasOf(req.headers['anthropic-beta']));
    if (req.method === 'POST' && route === '/v1/messages/count_tokens') return this.countTokens(res, ctx.body, requestId, betasOf(req.headers['anthropic-beta']));
    return this.error(res, 404, 'not_found_error', 'Not Found', requestId);
  }

  protected modelInfo(id: string): Record<string, unknown> {
    const info = ANTHROPIC_MODELS[id];
    return { type: 'model', id, display_name: info.displayName, created_at: info.createdAt, max_input_tokens: 200000, max_tokens: info.maxTokens, capabilities: null };
  }

  protected listModels(res: ServerResponse, query: URLSearchParams, requestId: string): void {
    const limit = Number(query.get('limit') ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return this.error(res, 400, 'invalid_request_error', 'limit: Input should be less than or equal to 1000', requestId);
    let ids = Object.keys(ANTHROPIC_MODELS).sort((a, b) => ANTHROPIC_MODELS[b].createdAt.localeCompare(ANTHROPIC_MODELS[a].createdAt));
    const after = query.get('after_id');
    const before = query.get('before_id');
    if (after) ids = ids.slice(ids.indexOf(after) + 1);
    if (before) ids = ids.slice(0, Math.max(ids.indexOf(before), 0));
    const page = before ? ids.slice(-limit) : ids.slice(0, limit);
    const data = page.map((id) => this.modelInfo(id));
    sendJson(res, 200, { data, has_more: ids.length > page.length, first_id: page[0] ?? null, last_id: page[page.length - 1] ?? null }, this.headers(requestId));
  }

  protected getModel(res: ServerResponse, id: string, requestId: string): void {
    const model = resolveModel(id);
    if (!model) return this.error(res, 404, 'not_found_error', `model: ${id}`, requestId);
    sendJson(res, 200, this.modelInfo(model), this.headers(requestId));
  }

  protected async messages(res: ServerResponse, raw: unknown, fault: Fault | undefined, requestId: string, betas: string[] = []): Promise<void> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return this.error(res, 400, 'invalid_request_error', 'There was an error parsing the body of your request as JSON.', requestId);
    }
    const body = raw as Record<string, unknown>;
    const invalid = validateMessagesRequest(body, betas);
    if (invalid) return this.error(res, invalid.status, invalid.type, invalid.message, requestId);
    const plan = this.withCache(planReply(body, this.options.toolPreamble, this.script), body);
    const id = `msg_01${randomAlnum(22)}`;
    const message = { id, type: 'message', role: 'assistant', model: body.model, content: plan.blocks, stop_reason: plan.stopReason, stop_sequence: plan.stopSequence, usage: this.usage(plan, plan.outputTokens) };
    if (body.stream !== true) return sendJson(res, 200, message, this.headers(requestId));
    await writeSse(res, this.streamEvents(message, plan), {
      chunkDelayMs: this.chunkDelayMs,
      fault,
      errorEvent: () => event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
      headers: { 'content-type': 'text/event-stream; charset=utf-8', ...this.headers(requestId) },
    });
  }

  /** `POST /v1/messages/count_tokens` (§1.9 of the ingress reference): the body without max_tokens, answered `{"input_tokens": N}`. */
  protected countTokens(res: ServerResponse, raw: unknown, requestId: string, betas: string[] = []): void {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return this.error(res, 400, 'invalid_request_error', 'There was an error parsing the body of your request as JSON.', requestId);
    }
    const body = raw as Record<string, unknown>;
    if ('max_tokens' in body) return this.error(res, 400, 'invalid_request_error', 'max_tokens: Extra inputs are not permitted', requestId);
    const invalid = validateMessagesRequest({ ...body, max_tokens: 1, thinking: undefined }, betas);
    if (invalid) return this.error(res, invalid.status, invalid.type, invalid.message, requestId);
    sendJson(res, 200, { input_tokens: anthropicInputTokens(body) }, this.headers(requestId));
  }

  /** Prefixes written to the prompt cache so far (key: model, tools and the cached system blocks). */
  private readonly cached = new Set<string>();

  /** The plan with its input split into the cached prefix (written or read) and the rest. */
  protected withCache(plan: AnthropicPlan, body: Record<string, unknown>): AnthropicPlan {
    const system = Array.isArray(body.system) ? (body.system as { cache_control?: { ttl?: string } }[]) : [];
    const last = system.findLastIndex((block) => block.cache_control);
    if (last < 0) return plan;
    const prefix = system.slice(0, last + 1);
    const tokens = Math.min(plan.inputTokens, anthropicInputTokens({ model: body.model, tools: body.tools, system: prefix, messages: [] }));
    const key = JSON.stringify([body.model, body.tools ?? null, prefix]);
    const rest = plan.inputTokens - tokens;
    if (this.cached.has(key)) return { ...plan, inputTokens: rest, cache: { read: tokens, write5m: 0, write1h: 0 } };
    this.cached.add(key);
    const oneHour = prefix[last].cache_control?.ttl === '1h';
    return { ...plan, inputTokens: rest, cache: { read: 0, write5m: oneHour ? 0 : tokens, write1h: oneHour ? tokens : 0 } };
  }

  protected usage(plan: AnthropicPlan, outputTokens: number): Record<string, unknown> {
    const cache = plan.cache ?? { read: 0, write5m: 0, write1h: 0 };
    return {
      input_tokens: plan.inputTokens,
      cache_creation_input_tokens: cache.write5m + cache.write1h,
      cache_read_input_tokens: cache.read,
      cache_creation: { ephemeral_5m_input_tokens: cache.write5m, ephemeral_1h_input_tokens: cache.write1h },
      output_tokens: outputTokens,
      service_tier: 'standard',
    };
  }

  /** The named-event sequence of §2.4 for a finished message. */
  protected streamEvents(message: Record<string, unknown>, plan: AnthropicPlan): string[] {
    const events = [event('message_start', { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: this.usage(plan, 1) } })];
    if (plan.blocks.length === 0) events.push(event('ping', {}));
    for (const [index, block] of plan.blocks.entries()) {
      if (block.type === 'thinking') {
        events.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
        if (index === 0) events.push(event('ping', {}));
        // Omitted thinking (display: "omitted") streams one empty thinking_delta.
        for (const thinking of block.thinking === '' ? [''] : splitDeltas(block.thinking)) events.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }));
        // The signature arrives just before the block's stop (streaming reference).
        events.push(event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }));
      } else if (block.type === 'text') {
        events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        if (index === 0) events.push(event('ping', {}));
        for (const text of splitDeltas(block.text)) events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
      } else {
        events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
        if (index === 0) events.push(event('ping', {}));
        const json = JSON.stringify(block.input);
        const middle = Math.ceil(json.length / 2);
        for (const partial of ['', json.slice(0, middle), json.slice(middle)]) {
          events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } }));
        }
      }
      events.push(event('content_block_stop', { index }));
    }
    const cache = plan.cache ?? { read: 0, write5m: 0, write1h: 0 };
    const usage = { input_tokens: plan.inputTokens, cache_creation_input_tokens: cache.write5m + cache.write1h, cache_read_input_tokens: cache.read, output_tokens: plan.outputTokens };
    events.push(event('message_delta', { delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence }, usage }));
    events.push(event('message_stop', {}));
    return events;
  }
}

/** One SSE event: a named `event:` line and `data` whose `type` equals the name (§2.4). */
function event(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

/** The anthropic-beta header's values (comma-separated). */
function betasOf(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').map((b) => b.trim()).filter(Boolean);
}
