import { defaultEndpoint, type Catalog, type Endpoint } from '../catalog/load-catalog.ts';
import { ConfigError, type PatchbayConfig } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { resolveModel } from './resolve-model.ts';

/**
 * Checks routing.aliases, routing.fallbacks and the models of routing.rules against the catalog and the providers, and puts the
 * resolved custom aliases into the catalog. Every name must resolve now, so a typo is refused when
 * it is saved (or at start), with the field, rather than turning into a 404 on some later request.
 */
export function applyRoutingConfig(catalog: Catalog, config: Pick<PatchbayConfig, 'aliases' | 'fallbacks' | 'providers' | 'path'> & Partial<Pick<PatchbayConfig, 'rules'>>): void {
  const problems: string[] = [];
  const resolved = new Map<string, Endpoint[]>();
  for (const [alias, members] of config.aliases) {
    const endpoints: Endpoint[] = [];
    members.forEach((member, index) => {
      const field = `routing.aliases.${alias}[${index}]`;
      if (config.aliases.has(member)) {
        problems.push(`${field}: "${member}" is another custom alias; list models or built-in aliases instead`);
        return;
      }
      const found = memberEndpoints(member, catalog, config.providers);
      if (typeof found === 'string') problems.push(`${field}: ${found}`);
      else for (const endpoint of found) if (!endpoints.some((e) => e.id === endpoint.id)) endpoints.push(endpoint);
    });
    resolved.set(alias, endpoints);
  }
  // Fallback names may use the custom aliases just resolved.
  const withAliases: Catalog = { ...catalog, customAliases: resolved };
  for (const [model, chain] of config.fallbacks) {
    const own = resolveName(model, withAliases, config);
    if (own) problems.push(`routing.fallbacks.${model}: ${own}`);
    chain.forEach((entry, index) => {
      const problem = resolveName(entry, withAliases, config);
      if (problem) problems.push(`routing.fallbacks.${model}[${index}]: ${problem}`);
    });
  }
  // A rule's model is where its requests go: it must resolve like a model a client names.
  for (const rule of config.rules ?? []) {
    const problem = resolveName(rule.model, withAliases, config);
    if (problem) problems.push(`routing.rules[${rule.index}].model: ${problem}`);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid routing settings${config.path ? ` in ${config.path}` : ''}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  catalog.customAliases = resolved;
}

/** A member's endpoints, or what is wrong with it. */
function memberEndpoints(member: string, catalog: Catalog, providers: PatchbayConfig['providers']): Endpoint[] | string {
  const builtin = catalog.aliases.get(member) ?? catalog.embeddingModels.get(member);
  if (builtin) return builtin.map((id) => catalog.endpoints.get(id)!).filter(Boolean);
  const known = catalog.endpoints.get(member);
  if (known) return [known];
  const slash = member.indexOf('/');
  const provider = slash > 0 ? providers.get(member.slice(0, slash)) : undefined;
  if (provider && !provider.builtin && member.length > slash + 1) return [defaultEndpoint(provider.name, member.slice(slash + 1))];
  if (provider) return `"${member}" is not in Patchbay's catalog for ${provider.name}; GET /v1/models lists the models you can use`;
  return `"${member}" is neither a provider-prefixed model (such as "openai/gpt-4o") nor a built-in alias`;
}

function resolveName(name: string, catalog: Catalog, config: Pick<PatchbayConfig, 'providers'>): string | null {
  try {
    resolveModel(name, catalog, config.providers);
    return null;
  } catch (error) {
    if (error instanceof PatchbayError) return error.message;
    throw error;
  }
}
