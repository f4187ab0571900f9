import type { ResolvedProvider } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { authHeaders } from './auth-headers.ts';
import { sendUpstreamForText } from './send-upstream.ts';
import { getUpstreamAgent } from './upstream-agent.ts';

export interface DiscoveredModel {
  id: string;
  /** What the list says the model is for, where it says (Gemini's methods, Together's type); undefined: not said. */
  kind?: 'chat' | 'embeddings' | 'other';
  /** Input window and output limit, where the list gives them (Anthropic, Gemini, Groq, Together). */
  contextWindow?: number;
  maxOutput?: number;
}

/** More than any local server lists; keeps a runaway answer from filling a page. */
const MAX_MODELS = 1000;
/** Anthropic and Gemini page their lists; a provider still paging after this many is not answering a list. */
const MAX_PAGES = 10;
const DISCOVER_TIMEOUT_MS = 10_000;

/**
 * The models a provider says it serves, from its own `GET /models`: OpenAI's list shape
 * (`data[].id`, which Ollama, LM Studio, vLLM and Groq also answer), a bare array of those
 * (Together), Anthropic's pages (`data`, `has_more`, `last_id`) or Gemini's (`models[].name`,
 * `nextPageToken`), each page asked for at its largest size, at most MAX_PAGES of them.
 */
export async function discoverModels(provider: ResolvedProvider, secret: string | undefined, connectTimeoutMs: number, signal?: AbortSignal): Promise<DiscoveredModel[]> {
  const found = new Map<string, DiscoveredModel>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await fetchPage(provider, secret, connectTimeoutMs, pageQuery(provider, cursor), signal);
    const models = listedModels(body);
    if (!models) throw unreachable(provider, 'its GET /models answer lists no models in a known shape (data[].id or models[].name)');
    for (const model of models) if (!found.has(model.id)) found.set(model.id, model);
    cursor = nextCursor(provider, body);
    if (!cursor || found.size >= MAX_MODELS) break;
  }
  return [...found.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, MAX_MODELS);
}

function pageQuery(provider: ResolvedProvider, cursor: string | undefined): string {
  if (provider.protocol === 'anthropic') return `?limit=1000${cursor ? `&after_id=${encodeURIComponent(cursor)}` : ''}`;
  if (provider.protocol === 'gemini') return `?pageSize=1000${cursor ? `&pageToken=${encodeURIComponent(cursor)}` : ''}`;
  return '';
}

function nextCursor(provider: ResolvedProvider, body: unknown): string | undefined {
  const page = body as { has_more?: unknown; last_id?: unknown; nextPageToken?: unknown } | null;
  if (provider.protocol === 'anthropic' && page?.has_more === true && typeof page.last_id === 'string') return page.last_id;
  if (provider.protocol === 'gemini' && typeof page?.nextPageToken === 'string' && page.nextPageToken) return page.nextPageToken;
  return undefined;
}

async function fetchPage(provider: ResolvedProvider, secret: string | undefined, connectTimeoutMs: number, query: string, signal?: AbortSignal): Promise<unknown> {
  let response;
  try {
    response = await sendUpstreamForText({
      provider: provider.name,
      url: `${provider.baseUrl}/models${query}`,
      method: 'GET',
      headers: { accept: 'application/json', ...authHeaders(provider.protocol, secret), ...provider.headers },
      body: '',
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(DISCOVER_TIMEOUT_MS)]) : AbortSignal.timeout(DISCOVER_TIMEOUT_MS),
      timeoutMs: DISCOVER_TIMEOUT_MS,
      dispatcher: getUpstreamAgent(connectTimeoutMs),
    });
  } catch (error) {
    const reason = error instanceof ProviderError ? error.message : (error as Error).message;
    throw unreachable(provider, `${reason}. Check that it runs and that ${provider.baseUrl} is right`);
  }
  if (response.status >= 400) {
    const hint = response.status === 401 || response.status === 403 ? 'set its API key first' : `check that ${provider.baseUrl}/models exists`;
    throw unreachable(provider, `it answered HTTP ${response.status} to GET /models; ${hint}`);
  }
  try {
    return JSON.parse(response.text);
  } catch {
    throw unreachable(provider, 'its GET /models answer is not JSON; is the base URL the API root (often ending in /v1)?');
  }
}

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);

function listedModels(body: unknown): DiscoveredModel[] | null {
  const record = body as { data?: unknown; models?: unknown } | null;
  // Together answers a bare array of model objects.
  const list = Array.isArray(body) ? body : record && Array.isArray(record.data) ? record.data : null;
  if (list) {
    return list.flatMap((raw) => {
      const m = (raw ?? {}) as Record<string, unknown>;
      if (typeof m.id !== 'string' || m.id.length === 0) return [];
      const type = typeof m.type === 'string' ? m.type : undefined;
      // Anthropic's entries say type "model"; Together's say what the model does.
      const kind = type === 'chat' || type === 'language' ? 'chat' : type === 'embedding' ? 'embeddings' : type && type !== 'model' ? 'other' : undefined;
      return [withFacts({ id: m.id, kind }, positive(m.max_input_tokens) ?? positive(m.context_window) ?? positive(m.context_length), positive(m.max_tokens) ?? positive(m.max_completion_tokens))];
    });
  }
  if (record && Array.isArray(record.models)) {
    return record.models.flatMap((raw) => {
      const m = (raw ?? {}) as Record<string, unknown>;
      if (typeof m.name !== 'string' || m.name.length === 0) return [];
      const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : undefined;
      const kind = !methods ? undefined : methods.includes('generateContent') ? 'chat' : methods.includes('embedContent') ? 'embeddings' : 'other';
      return [withFacts({ id: m.name.replace(/^models\//, ''), kind }, positive(m.inputTokenLimit), positive(m.outputTokenLimit))];
    });
  }
  return null;
}

function withFacts(model: DiscoveredModel, contextWindow: number | undefined, maxOutput: number | undefined): DiscoveredModel {
  return { id: model.id, ...(model.kind ? { kind: model.kind } : {}), ...(contextWindow ? { contextWindow } : {}), ...(maxOutput ? { maxOutput } : {}) };
}

function unreachable(provider: ResolvedProvider, why: string): PatchbayError {
  return new PatchbayError(`Could not list ${provider.name}'s models: ${why}.`, { status: 502, type: 'server_error', code: 'discovery_failed' });
}
