import type { ResolvedProvider } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { authHeaders } from './auth-headers.ts';
import { sendUpstreamForText } from './send-upstream.ts';
import { getUpstreamAgent } from './upstream-agent.ts';

export interface DiscoveredModel {
  id: string;
}

/** More than any local server lists; keeps a runaway answer from filling a page. */
const MAX_MODELS = 1000;
const DISCOVER_TIMEOUT_MS = 10_000;

/**
 * The models a provider says it serves, from its own `GET /models`: OpenAI's list shape
 * (`data[].id`, which Ollama, LM Studio and vLLM also answer), a bare array of those (Together),
 * or Gemini's (`models[].name`).
 */
export async function discoverModels(provider: ResolvedProvider, secret: string | undefined, connectTimeoutMs: number): Promise<DiscoveredModel[]> {
  let response;
  try {
    response = await sendUpstreamForText({
      provider: provider.name,
      url: `${provider.baseUrl}/models`,
      method: 'GET',
      headers: { accept: 'application/json', ...authHeaders(provider.protocol, secret), ...provider.headers },
      body: '',
      signal: AbortSignal.timeout(DISCOVER_TIMEOUT_MS),
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
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    throw unreachable(provider, 'its GET /models answer is not JSON; is the base URL the API root (often ending in /v1)?');
  }
  const ids = listedIds(body);
  if (!ids) throw unreachable(provider, 'its GET /models answer lists no models in a known shape (data[].id or models[].name)');
  return [...new Set(ids)].sort().slice(0, MAX_MODELS).map((id) => ({ id }));
}

function listedIds(body: unknown): string[] | null {
  const record = body as { data?: unknown; models?: unknown } | null;
  // Together answers a bare array of model objects.
  const list = Array.isArray(body) ? body : record && Array.isArray(record.data) ? record.data : null;
  if (list) return list.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string' && id.length > 0);
  if (record && Array.isArray(record.models)) {
    return record.models.map((m) => (m as { name?: unknown })?.name).filter((n): n is string => typeof n === 'string' && n.length > 0).map((n) => n.replace(/^models\//, ''));
  }
  return null;
}

function unreachable(provider: ResolvedProvider, why: string): PatchbayError {
  return new PatchbayError(`Could not list ${provider.name}'s models: ${why}.`, { status: 502, type: 'server_error', code: 'discovery_failed' });
}
