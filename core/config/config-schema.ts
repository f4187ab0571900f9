import { isIP } from 'node:net';
import { z } from 'zod';
import { routeRulesSchema } from './route-rule-schema.ts';

/** The protocols Patchbay speaks upstream; each has one adapter folder in core/providers. */
export const PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const STRATEGIES = ['balanced', 'latency', 'cost', 'availability', 'round-robin'] as const;
export type Strategy = (typeof STRATEGIES)[number];

const headersSchema = z.record(z.string(), z.string());

/** Longest fallback chain (config or X-Patchbay-Fallback): each entry can cost a full upstream attempt. */
export const MAX_FALLBACK_MODELS = 5;
/** Most members a custom alias may have. */
export const MAX_ALIAS_MEMBERS = 16;

/** A model as a client names it: an alias, `provider/model`, or a custom alias, with no control characters. */
export const modelNameSchema = z
  .string()
  .min(1, 'must name a model')
  .max(256, 'must be at most 256 characters')
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');

/** A custom alias's name: what clients send as `model`. No `/` (that means provider/model) and no `:` (that means a strategy). */
export const aliasNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit');

export const providerModelSchema = z.strictObject({
  id: z.string().min(1),
  contextWindow: z.number().int().positive().optional(),
  maxOutput: z.number().int().positive().optional(),
  inputPrice: z.number().nonnegative().optional(),
  outputPrice: z.number().nonnegative().optional(),
  capabilities: z.array(z.string()).optional(),
});

/** routing.fallbacks: a model as clients name it -> the models tried after its own endpoints. */
export const fallbacksSchema = z.record(
  modelNameSchema,
  z.array(modelNameSchema).min(1, 'must list at least one model').max(MAX_FALLBACK_MODELS, `must list at most ${MAX_FALLBACK_MODELS} models`),
);

/** routing.aliases: the user's own alias -> its member models (provider/model ids or built-in aliases). */
export const aliasesSchema = z.record(
  aliasNameSchema,
  z.array(modelNameSchema).min(1, 'must list at least one model').max(MAX_ALIAS_MEMBERS, `must list at most ${MAX_ALIAS_MEMBERS} models`),
);

/** How a provider's labelled keys take requests: each in order (the next only when one rests), or spread evenly. */
export const KEY_ORDERS = ['ordered', 'spread'] as const;
export type KeyOrder = (typeof KEY_ORDERS)[number];

/** A provider key's label (`providers set-key groq --label work`); the unlabelled key is "default". */
export const keyLabelSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'labels are 1 to 32 lower-case letters, digits, - and _');

/** A provider's name in config: what clients put before the slash in `name/model`. */
export const providerNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'provider names are 1 to 40 lower-case letters, digits, - and _');

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
  /** With several labelled keys: try them in order (the default key first), or spread requests across them. */
  keyOrder: z.enum(KEY_ORDERS).optional(),
});
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

/**
 * A model a coding agent is started with: it goes into the agent's environment and into the shell
 * snippets users paste (`patchbay claude --print`, the dashboard), so only what model ids are made
 * of: letters, digits and . _ - : / @ + and Claude Code's [1m] suffix. No quotes, `$`, spaces or `;`.
 */
const agentModelSchema = modelNameSchema.regex(/^[A-Za-z0-9._:/@+[\]-]+$/, 'must be a model name (letters, digits and . _ - : / @ + [ ] only), such as openai/gpt-4o');

/** A context window in tokens, as a coding agent is told it (CLAUDE_CODE_AUTO_COMPACT_WINDOW, Codex's model_context_window). */
const contextWindowSchema = z.number().int('must be a whole number of tokens').min(1_000, 'must be at least 1,000 tokens').max(10_000_000, 'must be at most 10,000,000 tokens');

/**
 * agents.claude: what `patchbay claude` gives Claude Code. `main` is its main model (ANTHROPIC_MODEL,
 * and the opus and sonnet tiers), `background` its haiku tier (session titles, summaries and other
 * background work), `subagent` the model of its subagents; `contextWindow` the main model's real
 * window, for a model Claude Code does not know (it assumes 1M tokens for those).
 */
export const claudeProfileSchema = z.strictObject({
  main: agentModelSchema.optional(),
  background: agentModelSchema.optional(),
  subagent: agentModelSchema.optional(),
  contextWindow: contextWindowSchema.optional(),
});

/** agents.codex: what `patchbay codex` gives Codex CLI (as `-c` overrides): its model and that model's window. */
export const codexProfileSchema = z.strictObject({
  main: agentModelSchema.optional(),
  contextWindow: contextWindowSchema.optional(),
});

export const agentsSchema = z.strictObject({ claude: claudeProfileSchema.optional(), codex: codexProfileSchema.optional() });
export type AgentProfiles = z.infer<typeof agentsSchema>;
export type AgentName = keyof AgentProfiles;

/** server.publicUrl: an origin only (scheme, host, optional port); Patchbay serves at the root of it. */
export const publicUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL, e.g. "https://patchbay.example.com"' })
  .refine((value) => {
    // Runs after the URL check too (zod goes on to report every issue): an unparsable value is that check's to report.
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username && !url.password;
  }, 'must be an origin only (scheme://host[:port]): Patchbay serves at the root of its host, so no path, query or user');

/** A trusted proxy's address: an IPv4 or IPv6 address, or a CIDR range (10.0.0.0/24). */
export const proxyAddressSchema = z.string().refine((value) => {
  const [address, bits, ...rest] = value.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}, 'must be an IP address or a CIDR range such as "10.0.0.5" or "10.0.0.0/24"');

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).optional(),
      port: z.number().int().min(0).max(65535).optional(),
      /** Extra Host header names accepted besides loopback names (e.g. a name in /etc/hosts). */
      allowedHosts: z.array(z.string().min(1)).optional(),
      /** Origins (scheme://host:port) whose browser pages may call the API. */
      allowedOrigins: z.array(z.string().min(1)).optional(),
      /**
       * The URL people reach Patchbay at through a reverse proxy (https://patchbay.example.com): the
       * dashboard accepts exactly this origin, and every link, snippet and sign-in code uses it.
       */
      publicUrl: publicUrlSchema.optional(),
      /** Addresses (or CIDR ranges) of the reverse proxies whose X-Forwarded-Proto / Forwarded proto= is believed; nobody else's is. */
      trustedProxies: z.array(proxyAddressSchema).optional(),
      /**
       * On SIGTERM, how long a replica whose /health a proxy polls keeps serving while /health says
       * "draining", before it stops taking connections (default 5000; 0: stop at once).
       */
      drainMs: z.number().int().min(0).max(120_000).optional(),
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
    .record(providerNameSchema, providerConfigSchema)
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
      /** Sticky routing: how long an idle session keeps its endpoint (default 10 minutes; 0 turns it off). */
      stickyIdleMs: z.number().int().nonnegative().optional(),
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
      /** Models tried, in order, after a model's own endpoints when a request sends no X-Patchbay-Fallback. */
      fallbacks: fallbacksSchema.optional(),
      /** The user's own aliases: a name routed by strategy over the listed models' endpoints. */
      aliases: aliasesSchema.optional(),
      /** What a request is for (an agent's hints, the request itself) -> the model that serves it; first match wins. */
      rules: routeRulesSchema.optional(),
    })
    .optional(),
  /** The coding agents `patchbay claude` and `patchbay codex` start: their models and windows. */
  agents: agentsSchema.optional(),
  keys: z
    .strictObject({
      /** A team's gateway (PostgreSQL) while the database cannot be reached: refuse capped keys with a 503 ("closed", the default) or admit them unchecked ("open"). */
      capsWhenDatabaseUnreachable: z.enum(['closed', 'open']).optional(),
    })
    .optional(),
  /** OpenTelemetry export and the Prometheus endpoint (docs/observability.md); off unless set here or by OTEL_* variables. */
  telemetry: z
    .strictObject({
      otlp: z
        .strictObject({
          /** Off while an endpoint is set keeps it for later (the dashboard's switch). */
          enabled: z.boolean().optional(),
          /** The collector's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces and /v1/metrics are added. */
          endpoint: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
          protocol: z.enum(['http/protobuf', 'http/json']).optional(),
          /** Sent with every export (a collector's or Langfuse's credentials), as OTEL_EXPORTER_OTLP_HEADERS. */
          headers: headersSchema.optional(),
          traces: z.boolean().optional(),
          metrics: z.boolean().optional(),
          /** Longest time a finished span waits before its batch is sent (OTEL_BSP_SCHEDULE_DELAY). */
          exportDelayMs: z.number().int().positive().optional(),
          /** One export's longest wait for the collector, retries included (OTEL_EXPORTER_OTLP_TIMEOUT). */
          timeoutMs: z.number().int().positive().optional(),
          /** How often metrics are sent (OTEL_METRIC_EXPORT_INTERVAL). */
          metricsIntervalMs: z.number().int().positive().optional(),
        })
        .optional(),
      serviceName: z.string().min(1).max(256).optional(),
      resourceAttributes: z.record(z.string(), z.string()).optional(),
      /** Prompt and answer content on spans (gen_ai.input.messages / gen_ai.output.messages): off by default. */
      captureContent: z.boolean().optional(),
      /** GET /metrics for Prometheus, behind its own token (DATA_DIR/metrics-token); optionally on its own address. */
      prometheus: z
        .strictObject({
          enabled: z.boolean().optional(),
          host: z.string().min(1).optional(),
          port: z.number().int().min(0).max(65535).optional(),
        })
        .optional(),
    })
    .optional(),
  catalog: z
    .strictObject({
      /** Where `patchbay models update` fetches the price table (default: genai-prices' own copy on GitHub); http(s). */
      url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
      /** How often each keyed provider's own model list is read again, in minutes (default 360; 0: only at start). */
      discoverEveryMinutes: z.number().int().nonnegative().optional(),
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
