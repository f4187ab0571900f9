import { mapCodexModelCatalog, type CodexModelInfo } from '../../agents/codex-model-catalog.ts';
import type { Catalog, Endpoint } from '../../catalog/load-catalog.ts';
import type { PatchbayConfig } from '../../config/load-config.ts';
import { listModels } from './list-models.ts';

/**
 * GET /v1/codex/models: the names GET /v1/models lists, as Codex's model catalog. Codex fetches it
 * from a provider's `model_catalog_url` (with `?client_version=`, and the provider's key, checked as
 * on any /v1 call) before its first turn; `patchbay codex` and the README's config.toml point it here.
 */
export function listCodexModels(catalog: Catalog, config: PatchbayConfig, created: number): { models: CodexModelInfo[] } {
  const byId = new Map<string, Endpoint>();
  for (const endpoint of [...catalog.endpoints.values(), ...[...catalog.customAliases.values()].flat()]) byId.set(endpoint.id, endpoint);
  const models = listModels(catalog, config, created).map((model) => ({
    id: model.id,
    endpoints: (model.endpoints ?? [model.id]).flatMap((id) => byId.get(id) ?? []),
  }));
  return mapCodexModelCatalog(models);
}
