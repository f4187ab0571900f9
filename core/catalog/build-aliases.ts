import { NEWEST_OF_FAMILY, PROVIDER_POLICIES, SHARED_ALIASES } from './catalog-policy.ts';
import type { CatalogData, CatalogEndpointData } from './catalog-schema.ts';

type Names = Pick<CatalogData, 'aliases' | 'embeddingModels' | 'auto'>;

/**
 * The short names: Patchbay's own aliases (those whose models are still listed), the table ids
 * of entries listed under a dated id (claude-opus-4-5), the newest model of each Claude family
 * (claude-opus), a Gemini preview without its suffix (gemini-3-pro), open models across the
 * providers that serve them, and each embedding model by its bare name.
 */
export function buildAliases(endpoints: CatalogEndpointData[], previous: Names, notes: string[]): Names {
  const ids = new Set(endpoints.map((e) => `${e.provider}/${e.model}`));
  const models = new Set(endpoints.map((e) => e.model));
  const aliases: Record<string, string[]> = {};
  const add = (name: string, members: string[], why: string) => {
    const listed = members.filter((m) => ids.has(m));
    if (listed.length < members.length) notes.push(`alias ${name} (${why}): ${members.filter((m) => !ids.has(m)).join(', ')} not listed`);
    // A name that is a listed model's own id already routes there; an alias would shadow it.
    if (listed.length > 0 && !aliases[name] && !(models.has(name) && why !== 'Patchbay')) aliases[name] = listed;
  };
  for (const [name, members] of Object.entries(previous.aliases)) add(name, members, 'Patchbay');
  for (const [provider, policy] of Object.entries(PROVIDER_POLICIES)) {
    for (const [tableId, id] of Object.entries(policy.keepIds ?? {})) add(tableId, [`${provider}/${id}`], 'table id');
  }
  for (const [family, id] of newestOfFamilies(endpoints)) add(`claude-${family}`, [id], 'newest of family');
  for (const e of endpoints) {
    if (e.provider === 'google' && e.model.endsWith('-preview')) add(e.model.slice(0, -'-preview'.length), [`google/${e.model}`], 'preview');
  }
  for (const [name, members] of Object.entries(SHARED_ALIASES)) add(name, members, 'shared');

  const embeddingModels: Record<string, string[]> = {};
  for (const [name, members] of Object.entries(previous.embeddingModels)) {
    const listed = members.filter((m) => ids.has(m));
    if (listed.length > 0) embeddingModels[name] = listed;
  }
  for (const e of endpoints) {
    if (!e.capabilities.includes('embeddings')) continue;
    const name = e.model.slice(e.model.lastIndexOf('/') + 1);
    const id = `${e.provider}/${e.model}`;
    embeddingModels[name] = [...new Set([...(embeddingModels[name] ?? []), id])];
  }

  const resolvable = (name: string) => name in aliases;
  const auto = { fast: previous.auto.fast.filter(resolvable), strong: previous.auto.strong.filter(resolvable) };
  return { aliases, embeddingModels, auto };
}

/** The newest Opus, Sonnet, Haiku ... by version (5-5 above 5 above 4-8), dated ids counted as their version. */
function newestOfFamilies(endpoints: CatalogEndpointData[]): Map<string, string> {
  const best = new Map<string, { id: string; version: number }>();
  for (const e of endpoints) {
    if (e.provider !== 'anthropic') continue;
    const match = NEWEST_OF_FAMILY.exec(e.model);
    if (!match) continue;
    const version = Number(match[2]) * 100 + Number(match[3] ?? 0);
    const current = best.get(match[1]);
    if (!current || version > current.version) best.set(match[1], { id: `anthropic/${e.model}`, version });
  }
  return new Map([...best].map(([family, { id }]) => [family, id]));
}
