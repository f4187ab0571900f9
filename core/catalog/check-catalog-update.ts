import { PROVIDER_POLICIES } from './catalog-policy.ts';
import type { CatalogData } from './catalog-schema.ts';
import { pricesOn, type PriceTable } from './price-table-schema.ts';

/**
 * Why a new catalog must not replace the current one, or null when it may: a table that lost
 * most models (a truncated download, a renamed provider), one that prices them at 0 (a broken
 * export), or one that lost a provider the current catalog lists. A table that merely drops a
 * few retired models, or adds many, passes.
 */
export function checkCatalogUpdate(current: CatalogData, next: CatalogData): string | null {
  const count = (data: CatalogData, provider?: string) => data.endpoints.filter((e) => !provider || e.provider === provider).length;
  if (count(next) < count(current) / 2) {
    return `it lists ${count(next)} models where the current catalog lists ${count(current)}; a table that drops most models is refused`;
  }
  for (const provider of new Set(current.endpoints.map((e) => e.provider))) {
    const before = count(current, provider);
    const after = count(next, provider);
    if (before >= 4 && after < before / 2) return `it lists ${after} ${provider} models where the current catalog lists ${before}; a table that drops most of a provider's models is refused`;
  }
  const free = next.endpoints.filter((e) => e.inputPrice === 0 && e.outputPrice === 0);
  if (free.length > next.endpoints.length / 10) {
    return `it prices ${free.length} of its ${next.endpoints.length} models at 0 (${free.slice(0, 3).map((e) => `${e.provider}/${e.model}`).join(', ')} ...); a table that prices models at 0 is refused`;
  }
  const priced = new Map(current.endpoints.map((e) => [`${e.provider}/${e.model}`, e]));
  const zeroed = next.endpoints.filter((e) => e.inputPrice === 0 && (priced.get(`${e.provider}/${e.model}`)?.inputPrice ?? 0) > 0);
  if (zeroed.length > 0) {
    return `it prices ${zeroed.map((e) => `${e.provider}/${e.model}`).slice(0, 3).join(', ')} at 0 where the current catalog has a price; refused`;
  }
  return null;
}

/**
 * Why a fetched genai-prices table is refused before it is built, or null: it lacks one of the
 * five providers, or prices many of their current models at 0 (the build would leave those out
 * as unknown, so the catalog check alone would not see it).
 */
export function checkPriceTable(table: PriceTable, day: string): string | null {
  const missing = Object.values(PROVIDER_POLICIES).map((p) => p.tableId).filter((id) => !table.some((provider) => provider.id === id));
  if (missing.length > 0) return `it has no ${missing.join(', ')} entries`;
  const kept = Object.values(PROVIDER_POLICIES).flatMap((policy) =>
    table.find((p) => p.id === policy.tableId)!.models.filter((m) => policy.include.test(m.id) && !policy.exclude.some((r) => r.test(m.id)) && !m.deprecated),
  );
  const free = kept.filter((m) => {
    const prices = pricesOn(m, day);
    return prices.input_mtok === 0 && (prices.output_mtok === 0 || prices.output_mtok === undefined);
  });
  if (free.length > kept.length / 10) return `it prices ${free.length} of its ${kept.length} chat and embedding models at 0 (${free.slice(0, 3).map((m) => m.id).join(', ')} ...); a table that prices models at 0 is refused`;
  return null;
}
