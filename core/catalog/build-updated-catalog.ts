import { buildCatalog } from './build-catalog.ts';
import { catalogDataSchema, type CatalogData } from './catalog-schema.ts';
import { checkCatalogUpdate, checkPriceTable } from './check-catalog-update.ts';
import { CatalogUpdateError, type FetchedTable } from './fetch-price-table.ts';
import { priceTableSchema } from './price-table-schema.ts';
import { readCatalogSources, SOURCES_DIR } from './read-catalog-sources.ts';

/** genai-prices' own copy of its table, updated as prices change (its npm package's REMOTE_DATA_JSON_URL). */
export const DEFAULT_CATALOG_URL = 'https://raw.githubusercontent.com/pydantic/genai-prices/main/prices/new_data/v2/data.json';

export interface CatalogUpdate {
  data: CatalogData;
  /** One line for the CLI and the dashboard: what changed. */
  summary: string;
}

/**
 * The catalog a fetched table makes, checked against the current one. The table is either
 * genai-prices' (an array of providers; built with the models.dev and Patchbay snapshots shipped
 * in core/catalog/sources/, as `npm run catalog:update` does) or a catalog of Patchbay's own shape
 * (a team's curated copy). Throws CatalogUpdateError naming the field or the reason it was refused.
 */
export async function buildUpdatedCatalog(fetched: FetchedTable, url: string, current: CatalogData, sourcesDir: URL = SOURCES_DIR): Promise<CatalogUpdate> {
  let next: CatalogData;
  if (Array.isArray(fetched.body)) {
    const table = priceTableSchema.safeParse(fetched.body);
    if (!table.success) throw new CatalogUpdateError(`The price table at ${url} is not a genai-prices table: ${describeIssue(table.error.issues[0])}; refused.`, false);
    const problem = checkPriceTable(table.data, fetched.day);
    if (problem) throw new CatalogUpdateError(`The price table at ${url} was refused: ${problem}. Keeping the catalog of ${current.pricesAsOf}.`, false);
    const inputs = await readCatalogSources(fetched.day, sourcesDir);
    const tableSource = { ...inputs.tableSource, version: fetched.version, date: fetched.day, url };
    try {
      next = buildCatalog({ ...inputs, table: table.data, tableSource }).catalog;
    } catch (error) {
      throw new CatalogUpdateError(`The price table at ${url} does not make a catalog (${(error as Error).message.split('\n')[0]}); refused.`, false);
    }
  } else {
    const catalog = catalogDataSchema.safeParse(fetched.body);
    if (!catalog.success) throw new CatalogUpdateError(`The table at ${url} is neither a genai-prices table nor a Patchbay catalog: ${describeIssue(catalog.error.issues[0])}; refused.`, false);
    next = catalog.data;
  }
  const refusal = checkCatalogUpdate(current, next);
  if (refusal) throw new CatalogUpdateError(`The price table at ${url} was refused: ${refusal}. Keeping the catalog of ${current.pricesAsOf}.`, false);
  return { data: next, summary: summarize(current, next) };
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'unreadable';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** "96 models, prices as of 2026-11-29: 3 added (openai/gpt-6.2-sol, ...), 1 removed, 4 prices changed". */
export function summarize(current: CatalogData, next: CatalogData): string {
  const key = (e: { provider: string; model: string }) => `${e.provider}/${e.model}`;
  const before = new Map(current.endpoints.map((e) => [key(e), e]));
  const after = new Set(next.endpoints.map(key));
  const added = next.endpoints.filter((e) => !before.has(key(e))).map(key);
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const changed = next.endpoints.filter((e) => {
    const old = before.get(key(e));
    return old && (old.inputPrice !== e.inputPrice || old.outputPrice !== e.outputPrice || old.cacheReadPrice !== e.cacheReadPrice || old.cacheWritePrice !== e.cacheWritePrice);
  }).length;
  const list = (ids: string[]) => (ids.length ? ` (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', ...' : ''})` : '');
  return `${next.endpoints.length} models, prices as of ${next.pricesAsOf}: ${added.length} added${list(added)}, ${removed.length} removed${list(removed)}, ${changed} prices changed`;
}
