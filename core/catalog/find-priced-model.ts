import { matchesModelId } from './match-model-id.ts';
import type { Catalog, Endpoint } from './catalog-types.ts';

/**
 * The catalog's facts for a provider's model id: its own entry, else the entry whose table
 * rules cover the id (a dated snapshot such as claude-opus-4-5-20251101, a spelling such as
 * gpt-5-1), as an endpoint of that id. Undefined when the table does not know the id.
 */
export function findPricedModel(catalog: Pick<Catalog, 'endpoints' | 'priceRules'>, provider: string, model: string): Endpoint | undefined {
  const id = `${provider}/${model}`;
  const listed = catalog.endpoints.get(id);
  if (listed) return listed;
  const rule = catalog.priceRules.get(provider)?.find((r) => matchesModelId(r.match, model) && !isLaterVersion(r.endpoint.model, model));
  return rule ? { ...rule.endpoint, id, model } : undefined;
}

/** A date a provider appends to a snapshot id: -20251101, -2025-11-13, -09-2025. */
const DATE_SUFFIX = /^-(\d{8}|\d{4}-\d{2}-\d{2}|\d{2}-\d{4})(\b|$)/;

/**
 * True when the id is the listed model's id plus a version number (claude-sonnet-5-5 after
 * claude-sonnet-5): the table's `starts_with claude-sonnet-5` covers it by accident, and a newer
 * model is not priced as its predecessor. A date suffix is the same model.
 */
export function isLaterVersion(listed: string, id: string): boolean {
  const lower = id.toLowerCase();
  const base = listed.toLowerCase();
  if (!lower.startsWith(`${base}-`) && !lower.startsWith(`${base}.`)) return false;
  const rest = lower.slice(base.length);
  return /^[-.]\d/.test(rest) && !DATE_SUFFIX.test(rest);
}
