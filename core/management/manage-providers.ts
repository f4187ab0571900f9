// The upstream providers: GET/POST/PATCH/DELETE /api/providers, `patchbay providers list`.
import type { ResolvedProvider } from '../config/load-config.ts';
import { section } from '../config/write-config.ts';
import { InvalidRequestError, PatchbayError } from '../errors/patchbay-error.ts';
import { discoverModels, type DiscoveredModel } from '../providers/discover-models.ts';
import { applyConfigChange } from './apply-config-change.ts';
import { liveConfig, type ManagementContext } from './management-context.ts';
import type { NewProviderInput, ProviderSettingsInput } from './management-schemas.ts';
import { providerView, type ProviderView } from './provider-view.ts';

type ProvidersContext = Pick<ManagementContext, 'config' | 'catalog' | 'configStore' | 'secrets'>;

export function requireProvider(ctx: Pick<ManagementContext, 'config'>, name: string): ResolvedProvider {
  const provider = ctx.config.providers.get(name);
  if (!provider) {
    throw new PatchbayError(`No provider is named "${name}"; known: ${[...ctx.config.providers.keys()].join(', ')}.`, {
      status: 404,
      type: 'invalid_request_error',
      code: 'provider_not_found',
      param: 'name',
    });
  }
  return provider;
}

export function listProviders(ctx: Pick<ManagementContext, 'config' | 'secrets'>): ProviderView[] {
  return [...ctx.config.providers.values()].map((p) => providerView(ctx, p));
}

export async function updateProvider(ctx: ProvidersContext, name: string, input: ProviderSettingsInput): Promise<ProviderView> {
  const provider = requireProvider(ctx, name);
  if (input.models !== undefined && provider.builtin) {
    throw new InvalidRequestError(`${name} is a built-in provider; its models come from Patchbay's catalog. Edit models of your own providers only.`, 'models', 'builtin_provider');
  }
  // Bind the secrets to where the provider points now, before it may point elsewhere.
  ctx.secrets.pin(provider);
  await applyConfigChange(liveConfig(ctx), (raw) => {
    const own = section(section(raw, 'providers'), name);
    if (input.enabled !== undefined) own.enabled = input.enabled;
    if (input.baseUrl !== undefined) own.baseUrl = input.baseUrl;
    if (input.models !== undefined) own.models = input.models;
    if (input.keyOrder !== undefined) own.keyOrder = input.keyOrder;
  });
  // applyConfigChange updates the provider's object in place.
  return providerView(ctx, provider);
}

/** A user-defined OpenAI-compatible provider (Ollama, LM Studio, vLLM ...). */
export async function addProvider(ctx: ProvidersContext, input: NewProviderInput): Promise<ProviderView> {
  if (ctx.config.providers.has(input.name)) {
    throw new InvalidRequestError(`A provider named "${input.name}" exists already; choose another name or edit that one.`, 'name', 'provider_exists', 409);
  }
  await applyConfigChange(liveConfig(ctx), (raw) => {
    const own: Record<string, unknown> = { baseUrl: input.baseUrl };
    if (input.apiKeyEnv) own.apiKeyEnv = input.apiKeyEnv;
    if (input.models) own.models = input.models;
    section(raw, 'providers')[input.name] = own;
  });
  return providerView(ctx, ctx.config.providers.get(input.name)!);
}

/** Removes a user-defined provider (built-ins are disabled instead); refused while an alias or fallback chain names it. */
export async function deleteProvider(ctx: ProvidersContext, name: string): Promise<void> {
  const provider = requireProvider(ctx, name);
  if (provider.builtin) throw new InvalidRequestError(`${name} is built in and cannot be removed; disable it instead.`, 'name', 'builtin_provider');
  await applyConfigChange(liveConfig(ctx), (raw) => {
    delete section(raw, 'providers')[name];
  });
  if (ctx.secrets.available) ctx.secrets.deleteAll(name);
}

/** The models a provider says it serves (its own GET /models), for the dashboard to pick from. */
export async function discoverProviderModels(ctx: Pick<ManagementContext, 'config' | 'secrets'>, name: string): Promise<{ models: DiscoveredModel[] }> {
  const provider = requireProvider(ctx, name);
  return { models: await discoverModels(provider, ctx.secrets.get(provider), ctx.config.connectTimeoutMs) };
}
