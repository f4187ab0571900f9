// The catalog's age and updates: GET /api/catalog, POST /api/catalog/update, `patchbay models`.
import { PatchbayError } from '../errors/patchbay-error.ts';
import type { CatalogStatus } from './catalog-updater.ts';
import type { ManagementContext } from './management-context.ts';
import type { CatalogUpdateInput } from './management-schemas.ts';

/** How old the prices are, where they come from, and what each provider's own list added. */
export function catalogStatus(ctx: Pick<ManagementContext, 'models' | 'catalog'>): CatalogStatus {
  return ctx.models?.status() ?? { prices_as_of: ctx.catalog.pricesAsOf, sources: ctx.catalog.sources, updated: false, url: '', discovered: [] };
}

/** Fetches the newest price table (or the one named) and puts it in force; offline or refused, a typed error and the catalog stays. */
export async function updateCatalog(ctx: Pick<ManagementContext, 'models'>, input: CatalogUpdateInput = {}): Promise<{ summary: string; prices_as_of: string }> {
  if (!ctx.models) throw new PatchbayError('The catalog is updated by the running Patchbay: start it, or run "patchbay models update" without it.', { status: 409, type: 'invalid_request_error', code: 'not_running' });
  const update = await ctx.models.update(input.url);
  return { summary: update.summary, prices_as_of: update.data.pricesAsOf };
}
