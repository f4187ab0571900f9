import type { ResolvedProvider } from '../config/load-config.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { authHeaders } from './auth-headers.ts';
import { sendUpstreamForText } from './send-upstream.ts';
import { getUpstreamAgent } from './upstream-agent.ts';

export interface CredentialTest {
  ok: boolean;
  status: number;
  message: string;
  latency_ms: number;
}

/**
 * Checks a provider's secret with the cheapest authenticated call there is: listing its models.
 * Costs no tokens. The answer never contains the secret.
 */
export async function testCredential(provider: ResolvedProvider, secret: string | undefined, connectTimeoutMs: number): Promise<CredentialTest> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  if (!secret && provider.requiresKey) return { ok: false, status: 0, message: `No API key is set for ${provider.name}.`, latency_ms: 0 };
  try {
    const response = await sendUpstreamForText({
      provider: provider.name,
      url: `${provider.baseUrl}/models`,
      method: 'GET',
      headers: { accept: 'application/json', ...authHeaders(provider.protocol, secret), ...provider.headers },
      body: '',
      signal: AbortSignal.timeout(15_000),
      timeoutMs: 15_000,
      dispatcher: getUpstreamAgent(connectTimeoutMs),
    });
    const redact = (text: string) => (secret ? text.replaceAll(secret, '[redacted]') : text);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, message: `${provider.name} accepted the key.`, latency_ms: latency() };
    if (response.status >= 300 && response.status < 400) {
      return { ok: false, status: response.status, message: redact(describeRedirect(provider.name, response.status, response.headers.location)), latency_ms: latency() };
    }
    const rejected = response.status === 401 || response.status === 403 || (response.status === 400 && response.text.includes('API_KEY_INVALID'));
    const message = rejected ? `${provider.name} rejected the key (HTTP ${response.status}). Check that it is current and has API access.` : `${provider.name} answered HTTP ${response.status}; the key could not be confirmed.`;
    return { ok: false, status: response.status, message: redact(message), latency_ms: latency() };
  } catch (error) {
    const message = error instanceof ProviderError ? error.message : `${provider.name}: ${(error as Error).message}`;
    return { ok: false, status: 0, message, latency_ms: latency() };
  }
}

/**
 * A redirect says nothing about the key: the transport does not follow it (a secret must never
 * travel to where an answer points), so the list the test asks for never came. Say where it
 * pointed (cut, printable characters only) so the user can fix the base URL.
 */
function describeRedirect(provider: string, status: number, location: string | string[] | undefined): string {
  const target = (Array.isArray(location) ? location[0] : location)?.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return `${provider} answered ${status} redirect ${target ? `to ${target}` : '(no Location)'}; the key was not checked (Patchbay does not follow redirects, so the key is never sent elsewhere). Check the base URL.`;
}
