import type { ServerResponse } from 'node:http';
import { EmulatorServer, sendJson, writeSse, type EmulatorContext, type Fault } from './emulator-server.ts';
import { isRecord, randomAlnum } from './emulator-common.ts';
import { countTokens, embeddingFor, splitDeltas } from './openai-emulator.ts';
import { geminiSignature, validatesSignatures, validateThoughtSignatures } from './gemini-signatures.ts';
import { GEMINI_MODELS, field, geminiPromptTokens, googleErrorBody, planGemini, validateGenerateRequest, type GeminiPlan, type GoogleError } from './gemini-wire.ts';

/**
 * A loopback stand-in for the Gemini API, v1beta (../shared/reference/provider-wire.md §3, §7.9,
 * §8.3–8.4), written from the public wire format, not from Patchbay's adapter:
 *
 * - `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse` (data-only SSE
 *   framed with CRLF, no terminator, cumulative usageMetadata on every chunk) and without `alt` (an
 *   incrementally written JSON array), `:countTokens`, `:embedContent`, `:batchEmbedContents`,
 *   `GET /v1beta/models` (pageSize/pageToken), `GET /v1beta/models/{model}`.
 * - Auth: `x-goog-api-key` header or `?key=`. A bad key is a 400 INVALID_ARGUMENT with an
 *   API_KEY_INVALID ErrorInfo; no key is a 403 PERMISSION_DENIED.
 * - Errors are google.rpc.Status bodies; 429s carry RetryInfo in the body and no rate-limit headers.
 * - Token counts: promptTokenCount = geminiPromptTokens (gemini-wire.ts); candidatesTokenCount =
 *   words of each candidate's text (function calls: words of the JSON args + 5) times the candidate
 *   count, omitted when 0 (proto3); thoughtsTokenCount only when the `thoughtsTokens` option is set;
 *   cachedContentTokenCount (a part of promptTokenCount, implicit caching's hit) only when the
 *   `cachedTokens` option is set (capped at the prompt's count).
 * - Thinking (generationConfig.thinkingConfig.includeThoughts): a thought summary part
 *   (`thought: true`) comes first, and the first answer part (text or functionCall) carries a
 *   `thoughtSignature` (`EMU-SIG-<responseId>`), as the thought-signatures guide describes; Gemini
 *   3 models sign it even without thoughts, and check replayed signatures (gemini-signatures.ts).
 *   Embedding responses carry no usage.
 */

export { GEMINI_MODELS, geminiPromptTokens, neutralMessages, functionResponseText } from './gemini-wire.ts';

export interface GeminiEmulatorOptions {
  apiKey: string;
  /** Reasoning tokens to report as thoughtsTokenCount (2.5 models think); 0 leaves the field out. */
  thoughtsTokens?: number;
  /** Prompt tokens to report as read from the cache (cachedContentTokenCount); 0 leaves the field out. */
  cachedTokens?: number;
}

const FAULTS: Record<number, [string, string]> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  401: ['UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.'],
  403: ['PERMISSION_DENIED', 'The caller does not have permission'],
  404: ['NOT_FOUND', 'Requested entity was not found.'],
  429: ['RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.'],
  500: ['INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
};

const CHAT_METHODS = ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'];
const EMBEDDING_METHODS = ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'];

export class GeminiEmulator extends EmulatorServer {
  protected readonly options: Required<GeminiEmulatorOptions>;

  constructor(options: GeminiEmulatorOptions) {
    super();
    this.options = { thoughtsTokens: 0, cachedTokens: 0, ...options };
  }

  protected error(res: ServerResponse, error: GoogleError, headers: Record<string, string> = {}): void {
    sendJson(res, error.code, googleErrorBody(error), { 'content-type': 'application/json; charset=UTF-8', ...headers });
  }

  protected faultError(res: ServerResponse, fault: Fault): void {
    const code = fault.status!;
    const [status, message] = FAULTS[code] ?? [code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT', `HTTP ${code} (injected).`];
    let details: unknown[] | undefined;
    let text = fault.message ?? message;
    if (code === 429) {
      const delay = `${fault.retryAfterSeconds ?? 34}s`;
      if (!fault.message) text = `${message} For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\nPlease retry in ${delay}.`;
      details = [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' }, quotaValue: '10' }],
        },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay },
      ];
    }
    this.error(res, { code, status, message: text, details }, fault.headers);
  }

  protected async handle(ctx: EmulatorContext): Promise<void> {
    const { req, res, path, fault } = ctx;
    const [route, queryString] = path.split('?');
    const query = new URLSearchParams(queryString ?? '');
    const key = req.headers['x-goog-api-key'] ?? query.get('key') ?? undefined;
    if (key === undefined) {
      return this.error(res, { code: 403, status: 'PERMISSION_DENIED', message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API." });
    }
    if (key !== this.options.apiKey) {
      const message = 'API key not valid. Please pass a valid API key.';
      return this.error(res, {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message,
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
          { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
        ],
      });
    }
    if (fault?.status) return this.faultError(res, fault);
    if (req.method === 'GET' && route === '/v1beta/models') return this.listModels(res, query);
    const match = /^\/v1beta\/models\/([^/:]+)(?::([A-Za-z]+))?$/.exec(route);
    if (!match) return this.error(res, { code: 404, status: 'NOT_FOUND', message: `Method not found: ${req.method} ${route}` });
    const [, model, method] = match;
    const info = GEMINI_MODELS[model];
    if (req.method === 'GET' && !method) {
      if (!info) return this.error(res, { code: 404, status: 'NOT_FOUND', message: `models/${model} is not found for API version v1beta.` });
      return sendJson(res, 200, this.modelResource(model));
    }
    const supported = info?.kind === 'embedding' ? ['embedContent', 'batchEmbedContents', 'countTokens'] : ['generateContent', 'streamGenerateContent', 'countTokens'];
    if (req.method !== 'POST' || !method || !info || !supported.includes(method)) {
      return this.error(res, {
        code: 404,
        status: 'NOT_FOUND',
        message: `models/${model} is not found for API version v1beta, or is not supported for ${method ?? 'this method'}. Call ListModels to see the list of available models and their supported methods.`,
      });
    }
    if (!isRecord(ctx.body)) return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. Expected an object.' });
    if (method === 'generateContent' || method === 'streamGenerateContent') return this.generate(res, model, ctx.body, method === 'streamGenerateContent', query.get('alt') === 'sse', fault);
    if (method === 'countTokens') {
      const request = isRecord(ctx.body.generateContentRequest) ? ctx.body.generateContentRequest : ctx.body;
      const tokens = geminiPromptTokens(request);
      return sendJson(res, 200, { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] });
    }
    return this.embed(res, model, ctx.body, method === 'batchEmbedContents');
  }

  protected modelResource(id: string): Record<string, unknown> {
    const info = GEMINI_MODELS[id];
    const common = { name: `models/${id}`, version: '001', displayName: info.displayName, description: `${info.displayName} (emulated)`, inputTokenLimit: info.inputTokenLimit, outputTokenLimit: info.outputTokenLimit };
    if (info.kind === 'embedding') return { ...common, supportedGenerationMethods: EMBEDDING_METHODS };
    return { ...common, supportedGenerationMethods: CHAT_METHODS, temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking: true };
  }

  protected listModels(res: ServerResponse, query: URLSearchParams): void {
    const pageSize = Math.min(Number(query.get('pageSize') ?? 50) || 50, 1000);
    const start = query.get('pageToken') ? Number(Buffer.from(query.get('pageToken')!, 'base64url').toString()) : 0;
    const ids = Object.keys(GEMINI_MODELS);
    const page = ids.slice(start, start + pageSize);
    const next = start + pageSize < ids.length ? { nextPageToken: Buffer.from(String(start + pageSize)).toString('base64url') } : {};
    sendJson(res, 200, { models: page.map((id) => this.modelResource(id)), ...next });
  }

  protected usage(plan: GeminiPlan, candidatesTokens: number): Record<string, unknown> {
    const thoughts = this.options.thoughtsTokens;
    const cached = Math.min(this.options.cachedTokens, plan.promptTokens);
    return {
      promptTokenCount: plan.promptTokens,
      ...(candidatesTokens > 0 ? { candidatesTokenCount: candidatesTokens } : {}),
      totalTokenCount: plan.promptTokens + candidatesTokens + thoughts,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: plan.promptTokens }],
      ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
      ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    };
  }

  /** One response (or stream chunk): the same parts for each of the candidateCount candidates. */
  protected response(plan: GeminiPlan, parts: unknown[], finish: string | null, candidatesTokens: number, model: string, responseId: string): Record<string, unknown> {
    const candidates = Array.from({ length: plan.candidateCount }, (_, index) => ({
      content: parts.length > 0 ? { parts, role: 'model' } : { role: 'model' },
      ...(finish ? { finishReason: finish } : {}),
      index,
    }));
    return { candidates, usageMetadata: this.usage(plan, candidatesTokens), modelVersion: model, responseId };
  }

  protected async generate(res: ServerResponse, model: string, body: Record<string, unknown>, stream: boolean, sse: boolean, fault: Fault | undefined): Promise<void> {
    const invalid = validateGenerateRequest(body) ?? validateThoughtSignatures(body, model);
    if (invalid) return this.error(res, invalid);
    const plan = planGemini(body, this.script);
    const responseId = randomAlnum(22);
    const n = plan.candidateCount;
    const total = plan.tokensPerCandidate * n;
    const thinking = (field(field(body, 'generationConfig'), 'thinkingConfig') as { includeThoughts?: unknown } | undefined)?.includeThoughts === true;
    const thought = { text: 'Thinking it over before answering.', thought: true };
    // Gemini 3 thinks on every call and signs its first answer part whether or not thoughts are shown.
    const signed = thinking || validatesSignatures(model) ? { thoughtSignature: geminiSignature(responseId) } : {};
    if (!stream) {
      const parts = plan.call ? [{ functionCall: plan.call, ...signed }] : plan.text ? [{ text: plan.text, ...signed }] : [];
      return sendJson(res, 200, this.response(plan, thinking ? [thought, ...parts] : parts, plan.finishReason, total, model, responseId), { 'content-type': 'application/json; charset=UTF-8' });
    }
    const chunks: Record<string, unknown>[] = [];
    if (thinking) chunks.push(this.response(plan, [thought], null, 0, model, responseId));
    if (plan.call) {
      chunks.push(this.response(plan, [{ functionCall: plan.call, ...signed }], null, total, model, responseId));
      chunks.push(this.response(plan, [{ text: '' }], plan.finishReason, total, model, responseId));
    } else {
      const deltas = splitDeltas(plan.text);
      if (deltas.length === 0) chunks.push(this.response(plan, [], plan.finishReason, 0, model, responseId));
      deltas.forEach((text, k) => {
        const soFar = countTokens(deltas.slice(0, k + 1).join('')) * n;
        chunks.push(this.response(plan, [{ text, ...(k === 0 ? signed : {}) }], k === deltas.length - 1 ? plan.finishReason : null, soFar, model, responseId));
      });
    }
    const errorBody = JSON.stringify(googleErrorBody({ code: 503, status: 'UNAVAILABLE', message: FAULTS[503][1] }));
    if (sse) {
      await writeSse(
        res,
        chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
        { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: () => `data: ${errorBody}\r\n\r\n`, headers: { 'content-type': 'text/event-stream' } },
      );
      return;
    }
    // Without alt=sse: one JSON array, written element by element.
    const pieces = chunks.map((c, i) => `${i === 0 ? '[' : '\n,\r\n'}${JSON.stringify(c)}${i === chunks.length - 1 ? '\n]' : ''}`);
    await writeSse(res, pieces, { chunkDelayMs: this.chunkDelayMs, fault, errorEvent: () => `\n,\r\n${errorBody}\n]`, headers: { 'content-type': 'application/json; charset=UTF-8' } });
  }

  /** `:embedContent` / `:batchEmbedContents`: outputDimensionality truncates the native vector (no usage in the response, §3.5). */
  protected embed(res: ServerResponse, model: string, body: Record<string, unknown>, batch: boolean): void {
    const native = GEMINI_MODELS[model].dimensions!;
    const requests = batch ? body.requests : [body];
    const where = batch ? 'BatchEmbedContentsRequest.requests' : 'EmbedContentRequest';
    if (!Array.isArray(requests) || requests.length === 0) return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: `* ${where}: requests is not specified\n` });
    if (requests.length > 100) return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: `* ${where}: at most 100 requests can be in one batch\n` });
    const embeddings: { values: number[] }[] = [];
    for (const [i, request] of requests.entries()) {
      const at = batch ? `${where}[${i}]` : where;
      const unknown = isRecord(request) ? Object.keys(request).find((k) => !['model', 'content', 'taskType', 'task_type', 'title', 'outputDimensionality', 'output_dimensionality'].includes(k)) : undefined;
      if (unknown) return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: `Invalid JSON payload received. Unknown name "${unknown}"${batch ? ` at 'requests[${i}]'` : ''}: Cannot find field.` });
      if (batch && field(request, 'model') !== `models/${model}`) {
        return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: `* ${at}.model: model in each request must match the model in the request path (models/${model}).\n` });
      }
      const texts = (Array.isArray(field(field(request, 'content'), 'parts')) ? (field(field(request, 'content'), 'parts') as unknown[]) : []).map((p) => field(p, 'text')).filter((t) => typeof t === 'string');
      if (texts.length === 0) return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: `* ${at}.content: content is not specified\n` });
      const requested = field(request, 'outputDimensionality') as number | undefined;
      if (requested !== undefined && (!Number.isInteger(requested) || requested < 1 || requested > native)) {
        return this.error(res, { code: 400, status: 'INVALID_ARGUMENT', message: `* ${at}.output_dimensionality: output_dimensionality must be between 1 and ${native}.\n` });
      }
      embeddings.push({ values: embeddingFor(texts.join(' '), requested ?? native) });
    }
    sendJson(res, 200, batch ? { embeddings } : { embedding: embeddings[0] }, { 'content-type': 'application/json; charset=UTF-8' });
  }
}
