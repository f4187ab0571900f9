import type { KeyOrder } from '../config/config-schema.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import type { KeyHealthView } from '../secrets/key-ring.ts';
import type { ManagementContext } from './management-context.ts';

export interface ProviderView {
  name: string;
  protocol: string;
  builtin: boolean;
  enabled: boolean;
  base_url: string;
  /** Where the secret comes from; the secret itself is never returned. */
  key_source: 'env' | 'keychain' | 'none';
  requires_key: boolean;
  /** A secret exists but is not sent: the base URL moved to another origin since it was set. */
  secret_withheld: boolean;
  /** What to do about the provider's secret (why it is withheld), or null when nothing needs doing. */
  notice: string | null;
  /** The models configured for it (providers.NAME.models), as written: what an edit starts from. */
  models: ResolvedProvider['models'];
  /** Its keys by label (the default first), each with its health; never a secret. */
  keys: ProviderKeyView[];
  /** How requests use its keys (providers.NAME.keyOrder). */
  key_order: KeyOrder;
  /** The environment variable that would carry its key (it wins over the keychain while set), or null. */
  key_env: string | null;
}

/** One key of a provider, by label: where it comes from, whether it is sent, and how it fared. */
export interface ProviderKeyView extends KeyHealthView {
  label: string;
  source: 'env' | 'keychain';
  /** Set for another origin than the provider's base URL now: not sent. */
  withheld: boolean;
  notice: string | null;
}

type ProviderViewContext = Pick<ManagementContext, 'secrets'>;

export function providerView(ctx: ProviderViewContext, p: ResolvedProvider): ProviderView {
  const withheld = ctx.secrets.withheldReason(p);
  return {
    name: p.name,
    protocol: p.protocol,
    builtin: p.builtin,
    enabled: p.enabled,
    base_url: p.baseUrl,
    key_source: ctx.secrets.source(p),
    requires_key: p.requiresKey,
    secret_withheld: withheld !== null,
    notice: withheld ? `${withheld}.` : null,
    models: p.models,
    keys: keyViews(ctx, p),
    key_order: p.keyOrder,
    key_env: p.apiKeyEnv ?? null,
  };
}

function keyViews(ctx: ProviderViewContext, p: ResolvedProvider): ProviderKeyView[] {
  const { secrets } = ctx;
  return secrets.keys(p).map((key) => ({
    label: key.label,
    source: key.source,
    withheld: key.withheld !== null,
    notice: key.withheld ? `${key.withheld}.` : null,
    ...(key.secret === undefined
      ? { resting_until: null, rest_reason: null, last_error: null, last_used_at: null, requests_since_start: 0 }
      : secrets.health.view(p.name, { label: key.label, secret: key.secret })),
  }));
}
