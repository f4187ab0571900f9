import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { BUILTIN_PROVIDERS } from './builtin-providers.ts';
import { resolveRouteRules, type RouteRule } from './route-rule-schema.ts';
import { configSchema, type AgentProfiles, type KeyOrder, type PatchbayConfigFile, type Protocol, type Strategy } from './config-schema.ts';

export const DEFAULT_PORT = 8790;
export const DEFAULT_HOST = '127.0.0.1';

export interface ResolvedProvider {
  name: string;
  protocol: Protocol;
  baseUrl: string;
  enabled: boolean;
  headers: Record<string, string>;
  apiKeyEnv: string | undefined;
  builtin: boolean;
  /** User-defined providers need no secret (a local Ollama has none). */
  requiresKey: boolean;
  models: NonNullable<NonNullable<PatchbayConfigFile['providers']>[string]['models']>;
  /** How requests use the provider's labelled keys (providers.NAME.keyOrder, default "ordered"). */
  keyOrder: KeyOrder;
}

export interface PatchbayConfig {
  path: string | null;
  host: string;
  port: number;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** server.publicUrl as an origin (no trailing slash), or null: where people reach Patchbay through a reverse proxy. */
  publicUrl: string | null;
  /** server.trustedProxies: the reverse proxies whose forwarded scheme is believed. */
  trustedProxies: string[];
  /** server.drainMs: on SIGTERM, how long a replica behind a proxy keeps serving while /health says "draining". */
  drainMs: number;
  /** Slowloris bounds: time for a request's headers, for the whole request, and open connections at most. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  /** A streaming client that takes nothing for this long is dropped (its upstream call closed, its usage row kept). */
  clientStallTimeoutMs: number;
  providers: Map<string, ResolvedProvider>;
  strategy: Strategy;
  weights: { latency: number; cost: number; availability: number };
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  maxRetryWaitMs: number;
  /** A session stays on the endpoint that last answered it until it has been idle this long (0: no sticky routing). */
  stickyIdleMs: number;
  breaker: { failureThreshold: number; cooldownMs: number };
  healthWindow: { size: number; maxAgeMs: number };
  routingFeeUsd: number;
  contentLog: boolean;
  /** routing.fallbacks: model as the client names it -> models tried after its own endpoints. */
  fallbacks: Map<string, string[]>;
  /** routing.aliases: the user's own alias -> its member models, as written. */
  aliases: Map<string, string[]>;
  /** routing.rules: what a request is for -> the model that serves it, tried in order. */
  rules: RouteRule[];
  /**
   * Moves forward on every change applied while Patchbay runs (routing, providers): what the
   * router caches per model is rebuilt when it moves.
   */
  revision: number;
  /** Routing paused from the tray or dashboard: /v1 requests get a 503 until resumed. Not saved: a restart resumes. */
  paused: boolean;
  /** keys.capsWhenDatabaseUnreachable: capped keys while PostgreSQL is away, refused (closed, the default) or admitted unchecked (open). */
  capsWhenDatabaseUnreachable: 'closed' | 'open';
  /** catalog.url: the price table `patchbay models update` fetches; undefined: genai-prices' own copy. */
  catalogUrl: string | undefined;
  /** catalog.discoverEveryMinutes, in ms: how often the providers' own model lists are read again (0: only at start). */
  discoverEveryMs: number;
  /** agents: the profiles `patchbay claude` and `patchbay codex` start the agents with. */
  agents: AgentProfiles;
  /** telemetry: as written (core/telemetry resolves it with the OTEL_* environment). */
  telemetry: TelemetryConfig;
}

export type TelemetryConfig = NonNullable<PatchbayConfigFile['telemetry']>;

/** Raised when the config file cannot be used; the message lists the path and every bad field. */
export class ConfigError extends Error {}

export function loadConfigFile(path: string, { required }: { required: boolean }): PatchbayConfig {
  const raw = readConfigFile(path, { required });
  return raw === null ? resolveConfig({}, null) : parseConfig(raw, path);
}

/** The config file's JSON as written (not validated); null when it does not exist and need not. */
export function readConfigFile(path: string, { required }: { required: boolean }): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !required) return null;
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Config file ${path} is not valid JSON: ${(error as Error).message}. Fix the file; Patchbay never replaces it.`);
  }
}

export function parseConfig(raw: unknown, path: string | null): PatchbayConfig {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const where = path ?? 'the config';
    throw new ConfigError(`Invalid config file ${where}:\n${formatIssues(parsed.error.issues)}\nFix the file; Patchbay never replaces it.`);
  }
  return resolveConfig(parsed.data, path);
}

function formatIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
      return `  - ${field}: ${issue.message}`;
    })
    .join('\n');
}

function resolveConfig(file: PatchbayConfigFile, path: string | null): PatchbayConfig {
  const providers = new Map<string, ResolvedProvider>();
  const configured = file.providers ?? {};
  for (const [name, builtin] of Object.entries(BUILTIN_PROVIDERS)) {
    const own = configured[name] ?? {};
    if (own.protocol && own.protocol !== builtin.protocol) {
      throw new ConfigError(`Invalid config file ${path}:\n  - providers.${name}.protocol: ${name} always speaks "${builtin.protocol}"; remove the field`);
    }
    providers.set(name, {
      name,
      protocol: builtin.protocol,
      baseUrl: trimSlash(own.baseUrl ?? builtin.baseUrl),
      enabled: own.enabled ?? true,
      headers: own.headers ?? {},
      apiKeyEnv: own.apiKeyEnv ?? builtin.apiKeyEnv,
      builtin: true,
      requiresKey: true,
      models: own.models ?? [],
      keyOrder: own.keyOrder ?? 'ordered',
    });
  }
  for (const [name, own] of Object.entries(configured)) {
    if (BUILTIN_PROVIDERS[name]) continue;
    if (!own.baseUrl) {
      throw new ConfigError(`Invalid config file ${path}:\n  - providers.${name}.baseUrl: required for a user-defined provider (e.g. "http://127.0.0.1:11434/v1" for Ollama)`);
    }
    providers.set(name, {
      name,
      protocol: own.protocol ?? 'openai',
      baseUrl: trimSlash(own.baseUrl),
      enabled: own.enabled ?? true,
      headers: own.headers ?? {},
      apiKeyEnv: own.apiKeyEnv,
      builtin: false,
      requiresKey: false,
      models: own.models ?? [],
      keyOrder: own.keyOrder ?? 'ordered',
    });
  }
  const headersTimeoutMs = file.server?.headersTimeoutMs ?? 10_000;
  const requestTimeoutMs = file.server?.requestTimeoutMs ?? 30_000;
  if (headersTimeoutMs > requestTimeoutMs) {
    // Node refuses a header timeout longer than the whole request's: say so in config terms.
    throw new ConfigError(`Invalid config file ${path}:\n  - server.headersTimeoutMs: ${headersTimeoutMs} is longer than server.requestTimeoutMs (${requestTimeoutMs}); the headers are part of the request, so make it at most that`);
  }
  return {
    path,
    host: file.server?.host ?? DEFAULT_HOST,
    port: file.server?.port ?? DEFAULT_PORT,
    allowedHosts: file.server?.allowedHosts ?? [],
    allowedOrigins: file.server?.allowedOrigins ?? [],
    publicUrl: file.server?.publicUrl ? new URL(file.server.publicUrl).origin : null,
    trustedProxies: file.server?.trustedProxies ?? [],
    drainMs: file.server?.drainMs ?? 5_000,
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: file.server?.maxConnections ?? 2_048,
    clientStallTimeoutMs: file.server?.clientStallTimeoutMs ?? 30_000,
    providers,
    strategy: file.routing?.strategy ?? 'balanced',
    weights: {
      latency: file.routing?.weights?.latency ?? 0.4,
      cost: file.routing?.weights?.cost ?? 0.3,
      availability: file.routing?.weights?.availability ?? 0.3,
    },
    connectTimeoutMs: file.routing?.connectTimeoutMs ?? 10_000,
    firstByteTimeoutMs: file.routing?.firstByteTimeoutMs ?? 120_000,
    maxRetryWaitMs: file.routing?.maxRetryWaitMs ?? 2_000,
    stickyIdleMs: file.routing?.stickyIdleMs ?? 600_000,
    breaker: {
      failureThreshold: file.routing?.breaker?.failureThreshold ?? 5,
      cooldownMs: file.routing?.breaker?.cooldownMs ?? 30_000,
    },
    healthWindow: {
      size: file.routing?.healthWindow?.size ?? 100,
      maxAgeMs: file.routing?.healthWindow?.maxAgeMs ?? 15 * 60_000,
    },
    routingFeeUsd: file.usage?.routingFeeUsd ?? 0,
    contentLog: file.usage?.contentLog ?? false,
    fallbacks: new Map(Object.entries(file.routing?.fallbacks ?? {})),
    aliases: new Map(Object.entries(file.routing?.aliases ?? {})),
    rules: resolveRouteRules(file.routing?.rules ?? []),
    revision: 0,
    paused: false,
    agents: file.agents ?? {},
    capsWhenDatabaseUnreachable: file.keys?.capsWhenDatabaseUnreachable ?? 'closed',
    telemetry: file.telemetry ?? {},
    catalogUrl: file.catalog?.url,
    discoverEveryMs: (file.catalog?.discoverEveryMinutes ?? 360) * 60_000,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
