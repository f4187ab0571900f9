import { z } from 'zod';
import { matchLogicSchema } from './match-model-id.ts';

/**
 * The parts of pydantic's genai-prices table (prices/new_data/v2/data.json, the array of
 * providers its npm package embeds) that Patchbay reads. Unknown fields pass: the table grows
 * new price units and provider fields, which must not make a good table unreadable.
 */
const priceSchema = z.number().nonnegative().finite();

/** A price that rises above a prompt size: `base` up to the first tier's `start` input tokens. */
export const tieredPriceSchema = z.looseObject({
  base: priceSchema,
  tiers: z.array(z.looseObject({ start: z.number().int().nonnegative(), price: priceSchema })),
});
export type TieredPrice = z.infer<typeof tieredPriceSchema>;

/** Unit -> USD per million (or per thousand for `_kcount`): input_mtok, output_mtok, cache_read_mtok ... */
export const modelPriceSchema = z.record(z.string(), z.union([priceSchema, tieredPriceSchema]));
export type ModelPrice = z.infer<typeof modelPriceSchema>;

const constraintSchema = z.union([
  z.looseObject({ start_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'), type: z.literal('start_date').optional() }),
  z.looseObject({ start_time: z.string(), end_time: z.string(), type: z.literal('time_of_date').optional() }),
]);

export const conditionalPriceSchema = z.looseObject({ constraint: constraintSchema.optional(), prices: modelPriceSchema });
export type ConditionalPrice = z.infer<typeof conditionalPriceSchema>;

export const tableModelSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  match: matchLogicSchema,
  context_window: z.number().int().positive().optional(),
  deprecated: z.boolean().optional(),
  prices: z.union([modelPriceSchema, z.array(conditionalPriceSchema).min(1)]),
});
export type TableModel = z.infer<typeof tableModelSchema>;

export const tableProviderSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  models: z.array(tableModelSchema),
});
export type TableProvider = z.infer<typeof tableProviderSchema>;

export const priceTableSchema = z.array(tableProviderSchema).min(1, 'lists no providers');
export type PriceTable = z.infer<typeof priceTableSchema>;

/**
 * The prices in effect on a day: the last start-date price that has begun, else the first
 * (genai-prices' own rule). Time-of-day prices (off-peak discounts) are not Patchbay's to
 * guess, so the unconstrained price stands for them.
 */
export function pricesOn(model: TableModel, day: string): ModelPrice {
  if (!Array.isArray(model.prices)) return model.prices;
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const { constraint, prices } = model.prices[i];
    if (!constraint) return prices;
    const start = startDate(constraint);
    if (start !== undefined && day >= start) return prices;
  }
  return model.prices[0].prices;
}

/** Price changes the table announces after `day`, so the catalog can say when its prices go stale. */
export function laterPriceChanges(model: TableModel, day: string): string[] {
  if (!Array.isArray(model.prices)) return [];
  return model.prices.flatMap(({ constraint }) => {
    const start = constraint && startDate(constraint);
    return start !== undefined && start > day ? [start] : [];
  });
}

function startDate(constraint: NonNullable<ConditionalPrice['constraint']>): string | undefined {
  return typeof constraint.start_date === 'string' ? constraint.start_date : undefined;
}
