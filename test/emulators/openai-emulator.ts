import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { scriptView } from './emulator-common.ts';
import { EmulatorServer, sendJson, writeSse, type EmulatorContext, type Fault } from './emulator-server.ts';
import { answerResponses } from './openai-responses-emulator.ts';
import { PrefixCache, chosenToolIndex } from './emulator-common.ts';

/**
 * A loopback stand-in for OpenAI's REST API, written from OpenAI's published OpenAPI spec and
 * openai-node (see ../shared/reference/provider-wire.md §1): data-only SSE ending in [DONE], usage
 * only when stream_options.include_usage is set (one final chunk with `choices: []`, `usage: null`
 * before it), error bodies with all four fields, base64 embeddings as little-endian float32, and
 * the x-ratelimit-* headers. Token counts are words (deterministic, so tests can predict them).
 */

/** gpt-6.2-sol and gpt-6.1-sol are what Codex CLI 0.171.0 and 0.169.0 ask for with no model set (observed 2026-11-29); they reason. */
export const EMULATOR_CHAT_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-6.1-sol', 'gpt-6.2-sol'];
export const EMULATOR_COMPLETION_MODELS = ['gpt-3.5-turbo-instruct'];
/** Most completion tokens each chat model writes; OpenAI refuses a larger max_tokens (see checkChatLimits). */
export const EMULATOR_OUTPUT_LIMITS: Record<string, number> = { 'gpt-4o': 16384, 'gpt-4o-mini': 16384, 'gpt-4.1': 32768, 'gpt-4.1-mini': 32768, 'gpt-4.1-nano': 32768 };
/** The emulated chat models that reason; OpenAI refuses reasoning_effort for the others. */
const REASONING_MODELS = new Set<string>(['gpt-6.1-sol', 'gpt-6.2-sol']);
export const EMULATOR_EMBEDDING_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

type Message = { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };
type Tool = { type: 'function'; function: { name: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } } };

/** Words, the emulator's tokens. */
export function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join(' ');
  return '';
}

/** The emulator's prompt token count for a chat: words of every message plus 3 per message and 3 for priming, as OpenAI's own formula shapes it. */
export function chatPromptTokens(messages: Message[]): number {
  return messages.reduce((sum, m) => sum + countTokens(textOf(m.content)) + 3, 3);
}

/** The deterministic reply to a conversation: what the emulated model "says". */
export function replyText(messages: Message[]): string {
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return `The tool returned ${textOf(last.content)}`;
  const hasImage = Array.isArray(last?.content) && (last.content as { type?: string }[]).some((p) => p.type === 'image_url');
  return `${hasImage ? 'I see an image. ' : ''}You said: ${textOf(last?.content)}`;
}

/** Applies stop sequences and a token limit; returns the text and OpenAI's finish reason. */
export function limitText(text: string, maxTokens: number | undefined, stop: unknown): { text: string; finish: 'stop' | 'length' } {
  let out = text;
  const stops = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? (stop as string[]) : [];
  for (const s of stops) {
    const at = out.indexOf(s);
    if (s && at !== -1) out = out.slice(0, at);
  }
  const words = out.split(' ');
  if (maxTokens !== undefined && countTokens(out) > maxTokens) {
    return { text: words.filter(Boolean).slice(0, maxTokens).join(' '), finish: 'length' };
  }
  return { text: out, finish: 'stop' };
}

/** Splits a text into stream deltas: one word each, spaces kept (trailing ones too, as providers stream them), so the deltas concatenate back exactly. */
export function splitDeltas(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

function toolArguments(tool: Tool): string {
  const props = Object.keys(tool.function.parameters?.properties ?? {});
  const required = tool.function.parameters?.required ?? props;
  return JSON.stringify(Object.fromEntries(required.map((name) => [name, `${name}-value`])));
}

/** Structured output: an object with every property of the json_schema (`<name>-value`), or `{"answer": "yes"}` in JSON mode. */
function jsonAnswer(format: unknown): string | null {
  const f = format as { type?: string; json_schema?: { schema?: { properties?: Record<string, unknown> } } } | undefined;
  if (f?.type === 'json_object') return JSON.stringify({ answer: 'yes' });
  if (f?.type !== 'json_schema') return null;
  return JSON.stringify(Object.fromEntries(Object.keys(f.json_schema?.schema?.properties ?? {}).map((name) => [name, `${name}-value`])));
}

/** Deterministic unit-ish vector from the input text. */
export function embeddingFor(input: string, dimensions: number): number[] {
  const out: number[] = [];
  let seed = createHash('sha256').update(input).digest();
  while (out.length < dimensions) {
    for (let i = 0; i + 4 <= seed.length && out.length < dimensions; i += 4) out.push(Math.fround(seed.readInt32LE(i) / 2 ** 31));
    seed = createHash('sha256').update(seed).digest();
  }
  return out;
}

export function float32Base64(values: number[]): string {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => buffer.writeFloatLE(v, i * 4));
  return buffer.toString('base64');
}

export interface OpenAiEmulatorOptions {
  apiKey: string;
  /** More keys the account accepts (a second project's key, say). */
  moreApiKeys?: string[];
  chatModels?: string[];
  completionModels?: string[];
  embeddingDimensions?: Record<string, number>;
}

export class OpenAiEmulator extends EmulatorServer {
  protected readonly options: Required<OpenAiEmulatorOptions>;
  /** This provider's prompt cache: prefixes it saw, read back as prompt_tokens_details.cached_tokens. */
  readonly promptCache = new PrefixCache();

  constructor(options: OpenAiEmulatorOptions) {
    super();
    this.options = {
      chatModels: EMULATOR_CHAT_MODELS,
      completionModels: EMULATOR_COMPLETION_MODELS,
      embeddingDimensions: EMULATOR_EMBEDDING_DIMENSIONS,
      ...options,
      // Subclasses pass `moreApiKeys: undefined` through when they were given none.
      moreApiKeys: options.moreApiKeys ?? [],
    };
  }

  /** Whether an Authorization header carries one of the account's keys. */
  protected acceptsBearer(authorization: string | undefined): boolean {
    if (authorization === `Bearer ${this.options.apiKey}`) return true;
    return this.options.moreApiKeys.some((key) => authorization === `Bearer ${key}`);
  }

  protected rateLimitHeaders(): Record<string, string> {
    return {
      'x-request-id': `req_${randomBytes(12).toString('hex')}`,
      'openai-processing-ms': '12',
      'openai-version': '2020-10-01',
      'x-ratelimit-limit-requests': '5000',
      'x-ratelimit-limit-tokens': '160000',
      'x-ratelimit-remaining-requests': '4999',
      'x-ratelimit-remaining-tokens': '159976',
      'x-ratelimit-reset-requests': '12ms',
      'x-ratelimit-reset-tokens': '9ms',
    };
  }

  protected error(res: ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}): void {
    sendJson(res, status, { error: { message, type, param, code } }, { ...this.rateLimitHeaders(), ...headers });
  }

  /** The error body OpenAI sends for an injected status. */
  protected faultError(res: ServerResponse, fault: Fault): void {
    const status = fault.status!;
    const presets: Record<number, [string, string, string | null]> = {
      400: ['Invalid request (injected).', 'invalid_request_error', null],
      401: ['Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'],
      404: ['The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found'],
      429: ['Rate limit reached for requests. Please try again in 1s.', 'requests', 'rate_limit_exceeded'],
      500: ['The server had an error while processing your request. Sorry about that!', 'server_error', null],
      503: ['The engine is currently overloaded, please try again later.', 'server_error', null],
    };
    const [message, type, code] = presets[status] ?? [`HTTP ${status} (injected).`, status >= 500 ? 'server_error' : 'invalid_request_error', null];
    const retryAfter: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
    const headers = { ...this.rateLimitHeaders(), ...retryAfter, ...fault.headers };
    const sentStatus = fault.errorWith200 ? 200 : status;
    if (fault.quoteKey) return sendJson(res, sentStatus, { error: this.keyQuotingError(message, fault.carriedKey) }, headers);
    sendJson(res, sentStatus, { error: { message: fault.message ?? message, type, param: null, code } }, headers);
  }

  /**
   * An error object that quotes the key the request carried in every field, in every encoding
   * (Fault.quoteKey): as sent, URL-encoded, JSON-escaped, and the ways a careless upstream or proxy
   * echoes it in a log line: without its prefix, upper- and lower-cased, base64 and base64url (of
   * the key, of the key without its prefix, inside a Basic credential), split by spaces and lines.
   */
  protected keyQuotingError(message: string, carried: string | undefined): Record<string, string> {
    const key = carried ?? this.options.apiKey;
    const escaped = JSON.stringify(key).slice(1, -1);
    const bare = key.replace(/^[A-Za-z]+[-_]/, '');
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const b64url = (text: string) => Buffer.from(text).toString('base64url');
    const groups = (text: string, size: number, separator: string) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!.join(separator);
    const echoes = [
      `key id ${bare}`,
      `KEY=${key.toUpperCase()}`,
      `key=${key.toLowerCase()}`,
      `b64 ${b64(key)}`,
      `b64url ${b64url(key)}`,
      `bare b64 ${b64(bare)} / ${b64url(bare)}`,
      `Authorization: Basic ${b64(`api:${key}`)}`,
      `spaced ${groups(key, 4, ' ')}`,
      `wrapped ${groups(bare, 6, '\n  ')}`,
    ];
    return {
      message: `${message} Request was: Authorization: Bearer ${key}; url ?key=${encodeURIComponent(key)}; body {"api_key":"${escaped}"}; seen as ${echoes.join('; ')}`,
      type: encodeURIComponent(key),
      param: escaped,
      code: `Bearer ${key}`,
    };
  }

  protected streamErrorEvent = (): string =>
    `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } })}\n\n`;

  /** The mid-stream error event: OpenAI's, or one quoting the key (Fault.quoteKey). */
  protected errorEventFor(fault: Fault | undefined): () => string {
    if (!fault?.quoteKey) return this.streamErrorEvent;
    return () => `data: ${JSON.stringify({ error: this.keyQuotingError('The server had an error while processing your request.', fault.carriedKey) })}\n\n`;
  }

  protected async handle(ctx: EmulatorContext): Promise<void> {
    const { req, res, path, fault } = ctx;
    const auth = req.headers.authorization;
    if (!this.acceptsBearer(auth)) {
      const shown = auth?.replace(/^Bearer\s+/i, '').slice(0, 5) ?? '';
      return this.error(res, 401, auth ? `Incorrect API key provided: ${shown}***.` : "You didn't provide an API key.", 'invalid_request_error', auth ? 'invalid_api_key' : null);
    }
    if (fault?.status) return this.faultError(res, fault);
    const route = path.split('?')[0].replace(/^\/v1/, '');
    if (req.method === 'GET' && route === '/models') return this.listModels(res);
    if (req.method !== 'POST') return this.error(res, 404, `Invalid URL (${req.method} ${path})`, 'invalid_request_error', null);
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    if (route === '/chat/completions') return this.chat(res, body, fault);
    if (route === '/completions') return this.completions(res, body, fault);
    if (route === '/embeddings') return this.embeddings(res, body);
    if (route === '/responses') return this.responses(res, body, fault);
    return this.error(res, 404, `Invalid URL (POST ${path})`, 'invalid_request_error', null);
  }

  /** POST /v1/responses (openai-responses-emulator.ts): OpenAI's own; its look-alikes (Groq, Together) answer 404 here. */
  protected responses(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined): Promise<void> {
    const headers = this.rateLimitHeaders();
    return answerResponses(res, body, fault, { script: this.script, chatModels: this.options.chatModels, chunkDelayMs: this.chunkDelayMs, headers, error: (r, status, message, type, code, param = null) => this.error(r, status, message, type, code, param) });
  }

  protected listModels(res: ServerResponse): void {
    const ids = [...this.options.chatModels, ...this.options.completionModels, ...Object.keys(this.options.embeddingDimensions)];
    sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1715367049, owned_by: 'system' })) }, this.rateLimitHeaders());
  }

  /** Checks common to chat and completions; answers the error and returns false when the request is bad. */
  protected checkModel(res: ServerResponse, model: unknown, known: string[]): boolean {
    if (typeof model !== 'string' || !model) {
      this.error(res, 400, 'you must provide a model parameter', 'invalid_request_error', null, 'model');
      return false;
    }
    if (!known.includes(model)) {
      this.error(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
      return false;
    }
    return true;
  }

  /** The usage's prompt details when part of the prompt came from this provider's cache (left out otherwise, as the fixtures expect). */
  protected cachedDetails(body: Record<string, unknown>, messages: Message[]): { prompt_tokens_details?: { cached_tokens: number } } {
    const cached = this.promptCache.readAndWrite(String(body.model), body.tools, messages, (k) => chatPromptTokens(messages.slice(0, k)));
    return cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {};
  }

  /**
   * OpenAI's refusals of a max_tokens above the model's output limit and of reasoning_effort on a
   * model that does not reason, in its words (quoted in public issue threads).
   */
  protected checkChatLimits(res: ServerResponse, body: Record<string, unknown>): boolean {
    const limit = EMULATOR_OUTPUT_LIMITS[body.model as string];
    for (const param of ['max_tokens', 'max_completion_tokens']) {
      const asked = body[param];
      if (limit !== undefined && typeof asked === 'number' && asked > limit) {
        this.error(res, 400, `${param} is too large: ${asked}. This model supports at most ${limit} completion tokens, whereas you provided ${asked}.`, 'invalid_request_error', null, param);
        return false;
      }
    }
    if (body.reasoning_effort !== undefined && EMULATOR_OUTPUT_LIMITS[body.model as string] !== undefined && !REASONING_MODELS.has(body.model as string)) {
      this.error(res, 400, "Unsupported parameter: 'reasoning_effort' is not supported with this model.", 'invalid_request_error', 'unsupported_parameter', 'reasoning_effort');
      return false;
    }
    return true;
  }

  protected chatChoicesFor(body: Record<string, unknown>): { messages: Message[]; toolCall: { name: string; arguments: string } | null; text: string; finish: 'stop' | 'length' | 'tool_calls' } {
    const messages = body.messages as Message[];
    const tools = (body.tools as Tool[] | undefined) ?? [];
    const choice = body.tool_choice as string | { function: { name: string } } | undefined;
    const last = messages[messages.length - 1];
    const scripted = this.script?.(scriptView(messages, tools.map((t) => t.function.name)));
    if (scripted && 'tool' in scripted) return { messages, toolCall: { name: scripted.tool, arguments: JSON.stringify(scripted.input) }, text: '', finish: 'tool_calls' };
    if (scripted) return { messages, toolCall: null, text: scripted.text, finish: 'stop' };
    if (tools.length > 0 && choice !== 'none' && last?.role === 'user') {
      const chosen = tools[chosenToolIndex(tools.map((t) => t.function.name), textOf(last.content))];
      const tool = typeof choice === 'object' ? (tools.find((t) => t.function.name === choice.function.name) ?? chosen) : chosen;
      return { messages, toolCall: { name: tool.function.name, arguments: toolArguments(tool) }, text: '', finish: 'tool_calls' };
    }
    const maxTokens = (body.max_completion_tokens ?? body.max_tokens) as number | undefined;
    const limited = limitText(jsonAnswer(body.response_format) ?? replyText(messages), maxTokens, body.stop);
    return { messages, toolCall: null, text: limited.text, finish: limited.finish };
  }

  protected async chat(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined): Promise<void> {
    if (!this.checkModel(res, body.model, this.options.chatModels)) return;
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return this.error(res, 400, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'invalid_request_error', 'empty_array', 'messages');
    }
    // OpenAI's function-name rule (provider-wire.md §1.2); Groq and Together follow the OpenAI wire.
    for (const [i, tool] of ((body.tools as Tool[] | undefined) ?? []).entries()) {
      const name = tool?.function?.name;
      if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
        return this.error(res, 400, `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`, 'invalid_request_error', 'invalid_value', `tools[${i}].function.name`);
      }
    }
    if (!this.checkChatLimits(res, body)) return;
    const n = (body.n as number | undefined) ?? 1;
    const plan = this.chatChoicesFor(body);
    const id = `chatcmpl-${randomBytes(10).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const model = `${body.model as string}-2024-08-06`;
    const promptTokens = chatPromptTokens(plan.messages);
    const completionTokens = plan.toolCall ? countTokens(plan.toolCall.arguments) + 5 : countTokens(plan.text);
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens * n, total_tokens: promptTokens + completionTokens * n, ...this.cachedDetails(body, plan.messages) };
    const callId = (i: number) => `call_${createHash('md5').update(`${id}${i}`).digest('hex').slice(0, 24)}`;

    if (body.stream !== true) {
      const choices = Array.from({ length: n }, (_, i) => ({
        index: i,
        message: plan.toolCall
          ? { role: 'assistant', content: null, refusal: null, annotations: [], tool_calls: [{ id: callId(i), type: 'function', function: plan.toolCall }] }
          : { role: 'assistant', content: plan.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: plan.finish,
      }));
      return sendJson(res, 200, { id, object: 'chat.completion', created, model, choices, usage, service_tier: 'default', system_fingerprint: 'fp_emulator' }, this.rateLimitHeaders());
    }

    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_emulator', choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
    const events: string[] = [];
    for (let i = 0; i < n; i++) {
      if (plan.toolCall) {
        events.push(chunk([{ index: i, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: callId(i), type: 'function', function: { name: plan.toolCall.name, arguments: '' } }] }, logprobs: null, finish_reason: null }]));
        const args = plan.toolCall.arguments;
        const middle = Math.ceil(args.length / 2);
        for (const part of [args.slice(0, middle), args.slice(middle)]) {
          events.push(chunk([{ index: i, delta: { tool_calls: [{ index: 0, function: { arguments: part } }] }, logprobs: null, finish_reason: null }]));
        }
      } else {
        events.push(chunk([{ index: i, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]));
        for (const delta of splitDeltas(plan.text)) events.push(chunk([{ index: i, delta: { content: delta }, logprobs: null, finish_reason: null }]));
      }
      events.push(chunk([{ index: i, delta: {}, logprobs: null, finish_reason: plan.finish }]));
    }
    if (includeUsage) events.push(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_emulator', choices: [], usage })}\n\n`);
    events.push('data: [DONE]\n\n');
    await writeSse(res, events, { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: this.errorEventFor(fault), headers: this.rateLimitHeaders() });
  }

  protected async completions(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined): Promise<void> {
    if (!this.checkModel(res, body.model, this.options.completionModels)) return;
    const prompts = typeof body.prompt === 'string' ? [body.prompt] : Array.isArray(body.prompt) && body.prompt.every((p) => typeof p === 'string') ? (body.prompt as string[]) : null;
    if (!prompts) return this.error(res, 400, "Invalid 'prompt': expected a string or an array of strings.", 'invalid_request_error', null, 'prompt');
    const n = (body.n as number | undefined) ?? 1;
    const maxTokens = (body.max_tokens as number | undefined) ?? 16;
    const id = `cmpl-${randomBytes(10).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const model = `${body.model as string}:20230824-v2`;
    const outputs = prompts.map((prompt) => limitText(` and then the story continues after: ${prompt}`, maxTokens, body.stop));
    const logprobs = body.logprobs as number | undefined;
    const logprobsFor = (text: string) => {
      if (logprobs == null) return null;
      const tokens = splitDeltas(text);
      return {
        tokens,
        token_logprobs: tokens.map((_, i) => -0.1 * (i + 1)),
        top_logprobs: tokens.map((t) => ({ [t]: -0.1 })),
        text_offset: tokens.map((_, i) => tokens.slice(0, i).join('').length),
      };
    };
    const promptTokens = prompts.reduce((sum, p) => sum + countTokens(p), 0);
    const completionTokens = outputs.reduce((sum, o) => sum + countTokens(o.text), 0) * n;
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const choices = outputs.flatMap((o, p) => Array.from({ length: n }, (_, i) => ({ text: o.text, index: p * n + i, logprobs: logprobsFor(o.text), finish_reason: o.finish })));

    if (body.stream !== true) {
      return sendJson(res, 200, { id, object: 'text_completion', created, model, system_fingerprint: 'fp_emulator', choices, usage }, this.rateLimitHeaders());
    }
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunk = (c: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'text_completion', created, choices: c, model, system_fingerprint: 'fp_emulator', ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
    const events: string[] = [];
    for (const choice of choices) {
      for (const delta of splitDeltas(choice.text)) events.push(chunk([{ text: delta, index: choice.index, logprobs: null, finish_reason: null }]));
      events.push(chunk([{ text: '', index: choice.index, logprobs: null, finish_reason: choice.finish_reason }]));
    }
    if (includeUsage) events.push(`data: ${JSON.stringify({ id, object: 'text_completion', created, model, system_fingerprint: 'fp_emulator', usage, choices: [] })}\n\n`);
    events.push('data: [DONE]\n\n');
    await writeSse(res, events, { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: this.errorEventFor(fault), headers: this.rateLimitHeaders() });
  }

  protected embeddings(res: ServerResponse, body: Record<string, unknown>): void {
    const model = body.model as string;
    const native = this.options.embeddingDimensions[model];
    if (!native) return this.error(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
    // OpenAI takes a string, strings, token ids (one input) or arrays of token ids.
    const raw = body.input;
    const inputs = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.length > 0 && raw.every((i) => typeof i === 'number') ? [raw] : (raw as unknown[]);
    const isIds = (i: unknown) => Array.isArray(i) && i.length > 0 && i.every((t) => Number.isInteger(t) && t >= 0);
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((i) => (typeof i !== 'string' || i === '') && !isIds(i))) {
      return this.error(res, 400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'invalid_request_error', null);
    }
    let dimensions = native;
    if (body.dimensions !== undefined) {
      if (model === 'text-embedding-ada-002') return this.error(res, 400, 'This model does not support specifying dimensions.', 'invalid_request_error', null, 'dimensions');
      dimensions = body.dimensions as number;
    }
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((input, index) => {
      const vector = embeddingFor(typeof input === 'string' ? input : (input as number[]).join(' '), dimensions);
      return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector };
    });
    const tokens = inputs.reduce((sum: number, i) => sum + (typeof i === 'string' ? countTokens(i) : (i as number[]).length), 0);
    sendJson(res, 200, { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }, this.rateLimitHeaders());
  }
}
