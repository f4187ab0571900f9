// A provider's own keys (secrets), by label: PUT/DELETE /api/providers/:name/secret(s), `patchbay providers set-key`.
import { PatchbayError } from '../errors/patchbay-error.ts';
import { testCredential, type CredentialTest } from '../providers/test-credential.ts';
import { DEFAULT_KEY_LABEL } from '../secrets/keychain-secret-store.ts';
import type { ManagementContext } from './management-context.ts';
import { requireProvider } from './manage-providers.ts';
import { providerView, type ProviderView } from './provider-view.ts';

type ProviderKeysContext = Pick<ManagementContext, 'config' | 'secrets'>;

/** Stores the provider's key under the label (the unlabelled "default" key when none is given), replacing one with the same label. */
export function setProviderSecret(ctx: ProviderKeysContext, name: string, secret: string, label = DEFAULT_KEY_LABEL): ProviderView {
  const provider = requireProvider(ctx, name);
  ctx.secrets.set(provider, secret, label);
  return providerView(ctx, provider);
}

export function deleteProviderSecret(ctx: ProviderKeysContext, name: string, label = DEFAULT_KEY_LABEL): ProviderView {
  const provider = requireProvider(ctx, name);
  if (label !== DEFAULT_KEY_LABEL && !ctx.secrets.keys(provider).some((k) => k.label === label && k.source === 'keychain')) {
    throw new PatchbayError(`${name} has no key labelled "${label}"; its keys: ${ctx.secrets.keys(provider).map((k) => k.label).join(', ') || 'none'}.`, {
      status: 404,
      type: 'invalid_request_error',
      code: 'provider_key_not_found',
      param: 'label',
    });
  }
  ctx.secrets.delete(name, label);
  return providerView(ctx, provider);
}

export async function testProvider(ctx: ProviderKeysContext, name: string): Promise<CredentialTest> {
  const provider = requireProvider(ctx, name);
  // A withheld secret is not sent, not even to check it: say why instead of calling the new host.
  const withheld = ctx.secrets.withheldReason(provider);
  if (withheld) return { ok: false, status: 0, message: `${withheld}.`, latency_ms: 0 };
  return testCredential(provider, ctx.secrets.get(provider), ctx.config.connectTimeoutMs);
}
