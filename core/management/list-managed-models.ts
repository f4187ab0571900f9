import type { Catalog, Endpoint } from '../catalog/load-catalog.ts';
import type { PatchbayConfig } from '../config/load-config.ts';

/** One name the dashboard can pick: a provider's model, a built-in alias or a custom alias. */
export interface ManagedModel {
  id: string;
  /** The provider for a model; null for aliases. */
  provider: string | null;
  kind: 'model' | 'alias' | 'custom_alias';
  /** For aliases: the endpoint ids behind the name. */
  members: string[];
  context_window: number;
  capabilities: string[];
  input_price: number | null;
  output_price: number | null;
  enabled: boolean;
}

/** Every model, built-in alias and custom alias, for allowlists, fallback chains and alias members. */
export function listManagedModels(catalog: Catalog, config: PatchbayConfig): ManagedModel[] {
  const enabled = (e: Endpoint) => config.providers.get(e.provider)?.enabled === true;
  const out: ManagedModel[] = [];
  for (const endpoint of catalog.endpoints.values()) {
    out.push({
      id: endpoint.id,
      provider: endpoint.provider,
      kind: 'model',
      members: [endpoint.id],
      context_window: endpoint.contextWindow,
      capabilities: [...endpoint.capabilities],
      // Null: no price table knows the model (one only its provider's list names).
      input_price: endpoint.priceUnknown ? null : endpoint.inputPrice,
      output_price: endpoint.priceUnknown ? null : endpoint.outputPrice,
      enabled: enabled(endpoint),
    });
  }
  const group = (id: string, kind: 'alias' | 'custom_alias', endpoints: Endpoint[]): ManagedModel => ({
    id,
    provider: null,
    kind,
    members: endpoints.map((e) => e.id),
    context_window: endpoints.length ? Math.min(...endpoints.map((e) => e.contextWindow)) : 0,
    capabilities: sharedCapabilities(endpoints),
    input_price: null,
    output_price: null,
    enabled: endpoints.some(enabled),
  });
  for (const [name, ids] of [...catalog.aliases, ...catalog.embeddingModels]) {
    if (catalog.customAliases.has(name)) continue;
    out.push(group(name, 'alias', ids.map((id) => catalog.endpoints.get(id)!).filter(Boolean)));
  }
  for (const [name, endpoints] of catalog.customAliases) out.push(group(name, 'custom_alias', endpoints));
  return out;
}

/** What every member can do: a request to a custom alias may land on any of them. */
export function sharedCapabilities(endpoints: Endpoint[]): string[] {
  if (endpoints.length === 0) return [];
  return [...endpoints[0].capabilities].filter((c) => endpoints.every((e) => e.capabilities.has(c)));
}
