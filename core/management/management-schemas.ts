import { z } from 'zod';
import { routeRulesSchema } from '../config/route-rule-schema.ts';
import { aliasesSchema, fallbacksSchema, KEY_ORDERS, keyLabelSchema, modelNameSchema, providerModelSchema, providerNameSchema, STRATEGIES } from '../config/config-schema.ts';

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

/** A provider key's label, as the path of PUT and DELETE /api/providers/NAME/secrets/LABEL and `--label` take it. */
export const providerKeyLabelSchema = z.strictObject({ label: keyLabelSchema });

const baseUrlSchema = z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' });

export const providerSettingsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  baseUrl: baseUrlSchema.optional(),
  /** A user-defined provider's models (replaces the list). */
  models: z.array(providerModelSchema).max(500).optional(),
  /** How requests use the provider's labelled keys: in order, or spread across them. */
  keyOrder: z.enum(KEY_ORDERS).optional(),
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
  /** The whole list of routing rules, in order (first match wins); [] removes them all. */
  rules: routeRulesSchema.optional(),
  /** Pause or resume routing (not saved: a restart resumes). */
  paused: z.boolean().optional(),
});
export type RoutingSettingsInput = z.infer<typeof routingSettingsSchema>;

/** PUT /api/telemetry: OTLP export from the dashboard (saved in the config file's telemetry section). */
export const telemetrySettingsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  endpoint: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL such as http://localhost:4318' }).optional(),
  protocol: z.enum(['http/protobuf', 'http/json']).optional(),
  captureContent: z.boolean().optional(),
});
export type TelemetrySettingsInput = z.infer<typeof telemetrySettingsSchema>;

/** POST /api/routing/explain: the request to explain. */
export const explainRouteSchema = z.strictObject({
  model: modelNameSchema,
  strategy: z.enum(STRATEGIES).optional(),
  stream: z.boolean().optional(),
  needs: z.array(z.enum(['tools', 'images'])).max(2).optional(),
  key_id: z.string().min(1).max(100).optional(),
  prompt_tokens: z.number().int().nonnegative().max(10_000_000).optional(),
  max_tokens: z.number().int().positive().max(10_000_000).optional(),
  /** A session id as its requests send it (X-Patchbay-Session, X-Claude-Code-Session-Id ...): would its next request stay where it is? */
  session: z.string().min(1).max(128).optional(),
  /** What the request is for, as an agent's hints and its body say: explains which routing rule would decide. */
  request_class: z.string().min(1).max(64).optional(),
  agent_type: z.string().min(1).max(64).optional(),
  auxiliary_type: z.string().min(1).max(64).optional(),
  thinking: z.boolean().optional(),
  tools: z.array(z.string().min(1).max(128)).max(200).optional(),
});
export type ExplainRouteInput = z.infer<typeof explainRouteSchema>;

export const usageQuerySchema = z.strictObject({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must look like 2026-11').optional(),
  group_by: z.enum(['key', 'provider', 'provider-key', 'model', 'day']).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  format: z.enum(['csv', 'json']).optional(),
});

const utcDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC date such as 2026-11-30')
  .refine((v) => {
    // Date.parse rolls 2026-02-30 over to March and rejects month 13: only a date that survives unchanged is real.
    const ms = Date.parse(`${v}T00:00:00Z`);
    return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(v);
  }, 'is not a date in the calendar');
/** Usage queries take whole UTC days, both inclusive; each defaults to this month's first or last day. */
const usageRange = { from: utcDay.optional(), to: utcDay.optional() };

export const usageTotalsQuerySchema = z.strictObject(usageRange);
export const usageLatencyQuerySchema = z.strictObject(usageRange);
export const usageSeriesQuerySchema = z.strictObject({
  ...usageRange,
  bucket: z.enum(['day', 'hour']).optional(),
  group_by: z.enum(['provider', 'model', 'key']).optional(),
});
export const usageBreakdownQuerySchema = z.strictObject({
  ...usageRange,
  group_by: z.enum(['model', 'provider', 'key']).optional(),
});
export const usageLogQuerySchema = z.strictObject({
  ...usageRange,
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(100).optional(),
  status: z
    .string()
    .regex(/^(ok|error|[1-5]\d\d)$/, 'must be ok, error or an HTTP status such as 429')
    .transform((v): 'ok' | 'error' | number => (v === 'ok' || v === 'error' ? v : Number(v)))
    .optional(),
  model: z.string().min(1).max(200).optional(),
  provider: z.string().min(1).max(100).optional(),
  key_id: z.string().min(1).max(100).optional(),
  /** One session's requests: its id as the client sent it (the Sessions page's session_id). */
  session: z.string().min(1).max(128).optional(),
});
export type UsageLogQuery = z.infer<typeof usageLogQuerySchema>;
/** GET /api/usage/sessions: the request log's range and filters. */
export const usageSessionsQuerySchema = usageLogQuerySchema;
/** GET /api/usage/requests?session=ID: one session's requests (its range defaults to all time). */
export const usageSessionRequestsQuerySchema = usageLogQuerySchema.extend({ session: z.string().min(1).max(128) });
export type UsageRangeQuery = z.infer<typeof usageTotalsQuerySchema>;

/** POST /api/catalog/update: the price table to fetch this once (default: config catalog.url, else genai-prices' own copy). */
export const catalogUpdateSchema = z.strictObject({ url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional() });
export type CatalogUpdateInput = z.infer<typeof catalogUpdateSchema>;
