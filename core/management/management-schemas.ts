import { z } from 'zod';
import { aliasesSchema, fallbacksSchema, modelNameSchema, providerModelSchema, providerNameSchema, STRATEGIES } from '../config/config-schema.ts';

const isoDate = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be a date such as 2027-01-31 or an ISO timestamp')
  .transform((v) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v));

/** Key settings as the management API and the CLI take them; null clears a limit. */
export const keySettingsSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  expires_at: isoDate.nullable().optional(),
  allowed_models: z.array(z.string().min(1)).min(1).nullable().optional(),
  monthly_token_cap: z.number().int().positive().nullable().optional(),
  monthly_usd_cap: z.number().positive().nullable().optional(),
  rpm_limit: z.number().int().positive().nullable().optional(),
  tpm_limit: z.number().int().positive().nullable().optional(),
});
export type KeySettingsInput = z.infer<typeof keySettingsSchema>;

export const createKeySchema = keySettingsSchema.extend({ name: z.string().min(1).max(100) });

export const providerSecretSchema = z.strictObject({
  secret: z
    .string()
    .min(8, 'looks too short to be a provider key')
    .max(4096)
    .refine((s) => !/\s/.test(s), 'must not contain spaces or line breaks'),
});

const baseUrlSchema = z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' });

export const providerSettingsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  baseUrl: baseUrlSchema.optional(),
  /** A user-defined provider's models (replaces the list). */
  models: z.array(providerModelSchema).max(500).optional(),
});
export type ProviderSettingsInput = z.infer<typeof providerSettingsSchema>;

/** A user-defined OpenAI-compatible provider (Ollama, LM Studio, vLLM ...). */
export const newProviderSchema = z.strictObject({
  name: providerNameSchema,
  baseUrl: baseUrlSchema,
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name').optional(),
  models: z.array(providerModelSchema).max(500).optional(),
});
export type NewProviderInput = z.infer<typeof newProviderSchema>;

export const routingSettingsSchema = z.strictObject({
  strategy: z.enum(STRATEGIES).optional(),
  weights: z
    .strictObject({ latency: z.number().nonnegative(), cost: z.number().nonnegative(), availability: z.number().nonnegative() })
    .refine((w) => w.latency + w.cost + w.availability > 0, 'at least one weight must be above 0')
    .optional(),
  fallbacks: fallbacksSchema.optional(),
  aliases: aliasesSchema.optional(),
  /** Pause or resume routing (not saved: a restart resumes). */
  paused: z.boolean().optional(),
});
export type RoutingSettingsInput = z.infer<typeof routingSettingsSchema>;

/** POST /api/routing/explain: the request to explain. */
export const explainRouteSchema = z.strictObject({
  model: modelNameSchema,
  strategy: z.enum(STRATEGIES).optional(),
  stream: z.boolean().optional(),
  needs: z.array(z.enum(['tools', 'images'])).max(2).optional(),
  key_id: z.string().min(1).max(100).optional(),
  prompt_tokens: z.number().int().nonnegative().max(10_000_000).optional(),
  max_tokens: z.number().int().positive().max(10_000_000).optional(),
});

export const usageQuerySchema = z.strictObject({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must look like 2026-11').optional(),
  group_by: z.enum(['key', 'provider', 'model', 'day']).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  format: z.enum(['csv', 'json']).optional(),
});
