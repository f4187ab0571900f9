import { loadCatalog, type Catalog } from '../catalog/load-catalog.ts';
import type { Protocol } from '../config/config-schema.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import { AnthropicAdapter } from '../providers/anthropic/anthropic-adapter.ts';
import { GeminiAdapter } from '../providers/gemini/gemini-adapter.ts';
import { OpenAiCompatibleAdapter } from '../providers/openai-compatible/openai-compatible-adapter.ts';
import type { ProviderAdapter } from '../providers/provider-adapter.ts';
import { applyRoutingConfig } from '../routing/apply-routing-config.ts';
import type { HealthTracker } from '../routing/health-tracker.ts';
import { Router } from '../routing/router.ts';
import type { SecretStore } from '../secrets/secret-store.ts';

/**
 * The catalog (shipped models, the config's models and custom aliases, checked) and the router
 * over it: what the server routes with, and what the CLI's offline mode explains routes with.
 */
export function createRouter(config: PatchbayConfig, secrets: SecretStore, health: HealthTracker): { catalog: Catalog; router: Router } {
  const catalog = loadCatalog(config.providers);
  applyRoutingConfig(catalog, config);
  const adapters: Partial<Record<Protocol, ProviderAdapter>> = {
    openai: new OpenAiCompatibleAdapter(config.connectTimeoutMs),
    anthropic: new AnthropicAdapter(config.connectTimeoutMs),
    gemini: new GeminiAdapter(config.connectTimeoutMs),
  };
  return { catalog, router: new Router({ catalog, config, secrets, adapters, health }) };
}
