import { z } from 'zod';

/** The protocols Patchbay speaks upstream; each has one adapter folder in core/providers. */
export const PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const STRATEGIES = ['balanced', 'latency', 'cost', 'availability', 'round-robin'] as const;
export type Strategy = (typeof STRATEGIES)[number];

const headersSchema = z.record(z.string(), z.string());

const providerModelSchema = z.strictObject({
  id: z.string().min(1),
  contextWindow: z.number().int().positive().optional(),
  maxOutput: z.number().int().positive().optional(),
  inputPrice: z.number().nonnegative().optional(),
  outputPrice: z.number().nonnegative().optional(),
  capabilities: z.array(z.string()).optional(),
});

export const providerConfigSchema = z.strictObject({
  /** Wire protocol; built-in providers have theirs fixed, user-defined ones default to `openai`. */
  protocol: z.enum(PROTOCOLS).optional(),
  baseUrl: z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).optional(),
  enabled: z.boolean().optional(),
  headers: headersSchema.optional(),
  /** Name of an environment variable holding this provider's secret (user-defined providers). */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name').optional(),
  /** Models a user-defined provider serves (listed in /v1/models); any model id is still passed through when pinned. */
  models: z.array(providerModelSchema).optional(),
});
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).optional(),
      port: z.number().int().min(0).max(65535).optional(),
      /** Extra Host header names accepted besides loopback names (e.g. a name in /etc/hosts). */
      allowedHosts: z.array(z.string().min(1)).optional(),
      /** Origins (scheme://host:port) whose browser pages may call the API. */
      allowedOrigins: z.array(z.string().min(1)).optional(),
      /** A client's request headers must arrive within this time (slowloris). */
      headersTimeoutMs: z.number().int().positive().optional(),
      /** The whole request (headers and body) must arrive within this time; answers, streams included, are not limited by it. */
      requestTimeoutMs: z.number().int().positive().optional(),
      /** Open client connections at most; beyond it new connections are closed at once. */
      maxConnections: z.number().int().positive().optional(),
      /** A streaming client that takes nothing of its answer for this long is dropped and the upstream call closed. */
      clientStallTimeoutMs: z.number().int().positive().optional(),
    })
    .optional(),
  providers: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'provider names are lower-case letters, digits, - and _'), providerConfigSchema)
    .optional(),
  routing: z
    .strictObject({
      strategy: z.enum(STRATEGIES).optional(),
      weights: z
        .strictObject({
          latency: z.number().nonnegative().optional(),
          cost: z.number().nonnegative().optional(),
          availability: z.number().nonnegative().optional(),
        })
        .optional(),
      connectTimeoutMs: z.number().int().positive().optional(),
      firstByteTimeoutMs: z.number().int().positive().optional(),
      /** A 429 whose retry window is at most this long is waited out on the same endpoint; a longer one falls back. */
      maxRetryWaitMs: z.number().int().nonnegative().optional(),
      breaker: z
        .strictObject({
          failureThreshold: z.number().int().positive().optional(),
          cooldownMs: z.number().int().positive().optional(),
        })
        .optional(),
      healthWindow: z
        .strictObject({
          size: z.number().int().positive().optional(),
          maxAgeMs: z.number().int().positive().optional(),
        })
        .optional(),
    })
    .optional(),
  usage: z
    .strictObject({
      /** Flat fee in USD added to every request's cost. */
      routingFeeUsd: z.number().nonnegative().optional(),
      /** Store request and response content for debugging (off by default). */
      contentLog: z.boolean().optional(),
    })
    .optional(),
});
export type PatchbayConfigFile = z.infer<typeof configSchema>;
