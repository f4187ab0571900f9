import type { PatchbayConfig, ResolvedProvider } from '../config/load-config.ts';
import type { IdleMemoryStats } from '../runtime/idle-memory.ts';
import { section } from '../config/write-config.ts';
import type { Catalog } from '../catalog/load-catalog.ts';
import { discoverModels, type DiscoveredModel } from '../providers/discover-models.ts';
import type { RouteExplanation, Router } from '../routing/router.ts';
import { applyConfigChange, type LiveConfig } from './apply-config-change.ts';
import { FileConfigStore, type ConfigStore } from '../config/config-store.ts';
import { listManagedModels, type ManagedModel } from './list-managed-models.ts';
import { describeAgents } from './describe-agents.ts';
import { InvalidRequestError, PatchbayError } from '../errors/patchbay-error.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { testCredential, type CredentialTest } from '../providers/test-credential.ts';
import { summarizeProvider, type HealthTracker } from '../routing/health-tracker.ts';
import { DEFAULT_KEY_LABEL, type KeychainSecretStore } from '../secrets/keychain-secret-store.ts';
import type { KeyHealthView } from '../secrets/key-ring.ts';
import type { KeyOrder } from '../config/config-schema.ts';
import { startOfMonth, type KeyLimiter } from '../keys/key-limiter.ts';
import { currentMonth, monthRange } from '../usage/month-range.ts';
import type { UsageGroup, UsageRange, UsageReader } from '../usage/usage-backend.ts';
import type { ExplainRouteInput, KeySettingsInput, NewProviderInput, ProviderSettingsInput, RoutingSettingsInput, UsageLogQuery, UsageRangeQuery } from './management-schemas.ts';
import { decodeCursor } from '../usage/log-cursor.ts';
import type { LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageSeries, UsageTotals } from '../usage/usage-views.ts';
import { toCsv } from './to-csv.ts';
import type { BreakdownGroup, UsageBreakdown } from '../usage/usage-views.ts';
import type { EventHub, EventListener } from '../events/event-hub.ts';

export interface KeyView {
  id: string;
  name: string;
  hint: string;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  allowed_models: string[] | null;
  monthly_token_cap: number | null;
  monthly_usd_cap: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  /** Used this month, and what requests in flight have reserved against the caps. */
  month_usage: { tokens: number; usd: number; reserved_tokens: number; reserved_usd: number };
  /** The last request a monthly cap refused, while the cap still refuses it (null otherwise). */
  cap_refusal: { cap: 'tokens' | 'usd'; at: string; needed: number } | null;
}

export interface ProviderView {
  name: string;
  protocol: string;
  builtin: boolean;
  enabled: boolean;
  base_url: string;
  /** Where the secret comes from; the secret itself is never returned. */
  key_source: 'env' | 'keychain' | 'none';
  requires_key: boolean;
  /** A secret exists but is not sent: the base URL moved to another origin since it was set. */
  secret_withheld: boolean;
  /** What to do about the provider's secret (why it is withheld), or null when nothing needs doing. */
  notice: string | null;
  /** The models configured for it (providers.NAME.models), as written: what an edit starts from. */
  models: ResolvedProvider['models'];
  /** Its keys by label (the default first), each with its health; never a secret. */
  keys: ProviderKeyView[];
  /** How requests use its keys (providers.NAME.keyOrder). */
  key_order: KeyOrder;
  /** The environment variable that would carry its key (it wins over the keychain while set), or null. */
  key_env: string | null;
}

/** One key of a provider, by label: where it comes from, whether it is sent, and how it fared. */
export interface ProviderKeyView extends KeyHealthView {
  label: string;
  source: 'env' | 'keychain';
  /** Set for another origin than the provider's base URL now: not sent. */
  withheld: boolean;
  notice: string | null;
}

/** One provider on the status page: its breaker and health over the health window, across its endpoints. */
export interface ProviderStatus {
  name: string;
  enabled: boolean;
  key_source: 'env' | 'keychain' | 'none';
  requires_key: boolean;
  /** A secret exists but is not sent: the base URL moved to another origin since it was set. */
  secret_withheld: boolean;
  /** The worst state among the provider's endpoints. */
  breaker: 'closed' | 'open' | 'half_open';
  latency_p50_ms: number | null;
  /** Failed attempts over all attempts in the health window, a fallback's rescued failures included. */
  error_rate: number | null;
  samples: number;
  /** The provider's last failed attempt (kept after the window), or null. */
  last_error: { at: string; model: string; status: number; error_type: string | null; message: string | null } | null;
}

const DAY_MS = 86_400_000;
/** An hourly series covers at most this many days (168 points per group): a chart has no room for more. */
const MAX_HOURLY_DAYS = 7;

export interface ManagementDeps {
  config: PatchbayConfig;
  configPath: string;
  /** Where routing and provider changes are saved (config.json, or PostgreSQL for a team); defaults to the file at configPath. */
  configStore?: ConfigStore;
  catalog: Catalog;
  router: Router;
  /** Told the new routing settings after each change (the live event stream). */
  onRoutingChange?: (routing: ReturnType<ManagementService['getRouting']>) => void;
  keys: KeyBackend;
  usage: UsageReader;
  secrets: KeychainSecretStore;
  health: HealthTracker;
  /** The running server's key limiter (reservations in flight, cap refusals); absent in the CLI's offline mode. */
  limiter?: Pick<KeyLimiter, 'capState'>;
  version: string;
  startedAt: number;
  /** Live events for GET /api/events. */
  events?: EventHub;
  /** The running server's idle memory release (core/app/idle-memory.ts), for GET /api/status. */
  idleMemory?: () => IdleMemoryStats;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Everything the dashboard and the CLI can do. The /api routes and the CLI's offline mode both
 * call this one service, so there is one implementation of each operation.
 */
export class ManagementService {
  private readonly deps: ManagementDeps;
  /** The /v1 base URL clients use, known once the server listens. */
  private baseUrl: string | null = null;

  private readonly configStore: ConfigStore;

  constructor(deps: ManagementDeps) {
    this.deps = deps;
    this.configStore = deps.configStore ?? new FileConfigStore(deps.configPath, deps.config);
  }

  private async keyView(record: ApiKeyRecord, now = Date.now()): Promise<KeyView> {
    return {
      id: record.id,
      name: record.name,
      hint: `${record.hint}...`,
      status: record.revokedAt !== null ? 'revoked' : record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active',
      created_at: iso(record.createdAt)!,
      expires_at: iso(record.expiresAt),
      revoked_at: iso(record.revokedAt),
      allowed_models: record.allowedModels,
      monthly_token_cap: record.monthlyTokenCap,
      monthly_usd_cap: record.monthlyUsdCap,
      rpm_limit: record.rpmLimit,
      tpm_limit: record.tpmLimit,
      ...(await this.capView(record, now)),
    };
  }

  /** Month usage with the limiter's reservations and refusal (the CLI's offline mode has no limiter: none). */
  private async capView(record: ApiKeyRecord, now: number): Promise<Pick<KeyView, 'month_usage' | 'cap_refusal'>> {
    const used = await this.deps.usage.keyTotalsSince(record.id, startOfMonth(now));
    const state = this.deps.limiter?.capState(record) ?? { reservedTokens: 0, reservedUsd: 0, refusal: null };
    return {
      month_usage: { ...used, reserved_tokens: state.reservedTokens, reserved_usd: state.reservedUsd },
      cap_refusal: state.refusal ? { cap: state.refusal.cap, at: new Date(state.refusal.at).toISOString(), needed: state.refusal.needed } : null,
    };
  }

  private async requireKey(id: string): Promise<ApiKeyRecord> {
    const record = await this.deps.keys.get(id);
    if (!record) throw new PatchbayError(`No key has the id "${id}".`, { status: 404, type: 'invalid_request_error', code: 'key_not_found', param: 'id' });
    return record;
  }

  async listKeys(): Promise<KeyView[]> {
    const now = Date.now();
    return Promise.all((await this.deps.keys.list()).map((k) => this.keyView(k, now)));
  }

  async createKey(input: KeySettingsInput & { name: string }): Promise<{ key: KeyView; secret: string }> {
    const created = await this.deps.keys.create({ name: input.name, ...toSettings(input) });
    return { key: await this.keyView(created.record), secret: created.secret };
  }

  async updateKey(id: string, input: KeySettingsInput): Promise<KeyView> {
    await this.requireKey(id);
    // The limiter reads a key's limits on every admission; its windows hold usage only, so they stay.
    const updated = (await this.deps.keys.update(id, { name: input.name, ...toSettings(input) }))!;
    return this.keyView(updated);
  }

  async rotateKey(id: string): Promise<{ key: KeyView; secret: string }> {
    const record = await this.requireKey(id);
    if (record.revokedAt !== null) throw new InvalidRequestError(`The key "${id}" is revoked; create a new key instead of rotating it.`, 'id', 'key_revoked', 409);
    const rotated = (await this.deps.keys.rotate(id))!;
    return { key: await this.keyView(rotated.record), secret: rotated.secret };
  }

  async revokeKey(id: string): Promise<KeyView> {
    await this.requireKey(id);
    await this.deps.keys.revoke(id);
    return this.keyView((await this.deps.keys.get(id))!);
  }

  listProviders(): ProviderView[] {
    return [...this.deps.config.providers.values()].map((p) => this.providerView(p));
  }

  private providerView(p: ResolvedProvider): ProviderView {
    const withheld = this.deps.secrets.withheldReason(p);
    return {
      name: p.name,
      protocol: p.protocol,
      builtin: p.builtin,
      enabled: p.enabled,
      base_url: p.baseUrl,
      key_source: this.deps.secrets.source(p),
      requires_key: p.requiresKey,
      secret_withheld: withheld !== null,
      notice: withheld ? `${withheld}.` : null,
      models: p.models,
      keys: this.keyViews(p),
      key_order: p.keyOrder,
      key_env: p.apiKeyEnv ?? null,
    };
  }

  private keyViews(p: ResolvedProvider): ProviderKeyView[] {
    const { secrets } = this.deps;
    return secrets.keys(p).map((key) => ({
      label: key.label,
      source: key.source,
      withheld: key.withheld !== null,
      notice: key.withheld ? `${key.withheld}.` : null,
      ...(key.secret === undefined
        ? { resting_until: null, rest_reason: null, last_error: null, last_used_at: null, requests_since_start: 0 }
        : secrets.health.view(p.name, { label: key.label, secret: key.secret })),
    }));
  }

  private requireProvider(name: string) {
    const provider = this.deps.config.providers.get(name);
    if (!provider) {
      throw new PatchbayError(`No provider is named "${name}"; known: ${[...this.deps.config.providers.keys()].join(', ')}.`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'provider_not_found',
        param: 'name',
      });
    }
    return provider;
  }

  /** Stores the provider's key under the label (the unlabelled "default" key when none is given), replacing one with the same label. */
  setProviderSecret(name: string, secret: string, label = DEFAULT_KEY_LABEL): ProviderView {
    const provider = this.requireProvider(name);
    this.deps.secrets.set(provider, secret, label);
    return this.providerView(provider);
  }

  deleteProviderSecret(name: string, label = DEFAULT_KEY_LABEL): ProviderView {
    const provider = this.requireProvider(name);
    if (label !== DEFAULT_KEY_LABEL && !this.deps.secrets.keys(provider).some((k) => k.label === label && k.source === 'keychain')) {
      throw new PatchbayError(`${name} has no key labelled "${label}"; its keys: ${this.deps.secrets.keys(provider).map((k) => k.label).join(', ') || 'none'}.`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'provider_key_not_found',
        param: 'label',
      });
    }
    this.deps.secrets.delete(name, label);
    return this.providerView(provider);
  }

  async testProvider(name: string): Promise<CredentialTest> {
    const provider = this.requireProvider(name);
    // A withheld secret is not sent, not even to check it: say why instead of calling the new host.
    const withheld = this.deps.secrets.withheldReason(provider);
    if (withheld) return { ok: false, status: 0, message: `${withheld}.`, latency_ms: 0 };
    return testCredential(provider, this.deps.secrets.get(provider), this.deps.config.connectTimeoutMs);
  }

  private get live(): LiveConfig {
    return { config: this.deps.config, catalog: this.deps.catalog, store: this.configStore };
  }

  async updateProvider(name: string, input: ProviderSettingsInput): Promise<ProviderView> {
    const provider = this.requireProvider(name);
    if (input.models !== undefined && provider.builtin) {
      throw new InvalidRequestError(`${name} is a built-in provider; its models come from Patchbay's catalog. Edit models of your own providers only.`, 'models', 'builtin_provider');
    }
    // Bind the secrets to where the provider points now, before it may point elsewhere.
    this.deps.secrets.pin(provider);
    await applyConfigChange(this.live, (raw) => {
      const own = section(section(raw, 'providers'), name);
      if (input.enabled !== undefined) own.enabled = input.enabled;
      if (input.baseUrl !== undefined) own.baseUrl = input.baseUrl;
      if (input.models !== undefined) own.models = input.models;
      if (input.keyOrder !== undefined) own.keyOrder = input.keyOrder;
    });
    // applyConfigChange updates the provider's object in place.
    return this.providerView(provider);
  }

  /** A user-defined OpenAI-compatible provider (Ollama, LM Studio, vLLM ...). */
  async addProvider(input: NewProviderInput): Promise<ProviderView> {
    if (this.deps.config.providers.has(input.name)) {
      throw new InvalidRequestError(`A provider named "${input.name}" exists already; choose another name or edit that one.`, 'name', 'provider_exists', 409);
    }
    await applyConfigChange(this.live, (raw) => {
      const own: Record<string, unknown> = { baseUrl: input.baseUrl };
      if (input.apiKeyEnv) own.apiKeyEnv = input.apiKeyEnv;
      if (input.models) own.models = input.models;
      section(raw, 'providers')[input.name] = own;
    });
    return this.providerView(this.deps.config.providers.get(input.name)!);
  }

  /** Removes a user-defined provider (built-ins are disabled instead); refused while an alias or fallback chain names it. */
  async deleteProvider(name: string): Promise<void> {
    const provider = this.requireProvider(name);
    if (provider.builtin) throw new InvalidRequestError(`${name} is built in and cannot be removed; disable it instead.`, 'name', 'builtin_provider');
    await applyConfigChange(this.live, (raw) => {
      delete section(raw, 'providers')[name];
    });
    if (this.deps.secrets.available) this.deps.secrets.deleteAll(name);
  }

  /** The models a provider says it serves (its own GET /models), for the dashboard to pick from. */
  async discoverProviderModels(name: string): Promise<{ models: DiscoveredModel[] }> {
    const provider = this.requireProvider(name);
    return { models: await discoverModels(provider, this.deps.secrets.get(provider), this.deps.config.connectTimeoutMs) };
  }

  getRouting() {
    const c = this.deps.config;
    return {
      strategy: c.strategy,
      paused: c.paused,
      weights: c.weights,
      fallbacks: Object.fromEntries(c.fallbacks),
      aliases: Object.fromEntries(c.aliases),
      breaker: c.breaker,
      max_retry_wait_ms: c.maxRetryWaitMs,
      connect_timeout_ms: c.connectTimeoutMs,
      first_byte_timeout_ms: c.firstByteTimeoutMs,
    };
  }

  /**
   * Strategy, weights, fallback chains and custom aliases (saved; each map given replaces the whole
   * map), and pausing (in memory on one machine; saved and shared by a team's replicas on PostgreSQL).
   */
  async setRouting(input: RoutingSettingsInput) {
    if (input.strategy || input.weights || input.fallbacks || input.aliases) {
      await applyConfigChange(this.live, (raw) => {
        const routing = section(raw, 'routing');
        if (input.strategy) routing.strategy = input.strategy;
        if (input.weights) routing.weights = input.weights;
        if (input.fallbacks) routing.fallbacks = input.fallbacks;
        if (input.aliases) routing.aliases = input.aliases;
      });
    }
    if (input.paused !== undefined) {
      await this.configStore.setPaused(input.paused);
      this.deps.config.paused = input.paused;
    }
    const routing = this.getRouting();
    this.deps.onRoutingChange?.(routing);
    return routing;
  }

  /** What routing would do with a request now, and why (the dashboard's "Which provider now?", `patchbay routing explain`). */
  async explainRoute(input: ExplainRouteInput): Promise<RouteExplanation> {
    const allowedModels = input.key_id ? (await this.requireKey(input.key_id)).allowedModels : null;
    return this.deps.router.explain({
      model: input.model,
      strategy: input.strategy,
      stream: input.stream,
      needs: input.needs,
      promptTokens: input.prompt_tokens,
      maxTokens: input.max_tokens,
      allowedModels,
      session: input.session,
    });
  }

  /** Every model, built-in alias and custom alias, for the dashboard's pickers. */
  listModels(): { data: ManagedModel[] } {
    return { data: listManagedModels(this.deps.catalog, this.deps.config) };
  }

  /** GET /api/agents: how `patchbay claude` / `patchbay codex` start the agents, as copyable text. */
  agents() {
    return describeAgents(this.deps.config, this.deps.configPath, this.deps.catalog, this.baseUrl);
  }

  async usageSummary(month = currentMonth(), groupBy: UsageGroup = 'model') {
    const { from, to } = monthRange(month);
    return { month, group_by: groupBy, rows: await this.deps.usage.totalsBy(groupBy, from, to) };
  }

  async usageRequests(month = currentMonth(), limit = 200) {
    const { from, to } = monthRange(month);
    return { month, rows: await this.deps.usage.rows(from, to, limit) };
  }

  async exportUsage(month = currentMonth(), format: 'csv' | 'json' = 'csv'): Promise<string> {
    const { from, to } = monthRange(month);
    const rows = (await this.deps.usage.rows(from, to, 1_000_000)).reverse();
    return format === 'json' ? JSON.stringify(rows, null, 2) : toCsv(rows);
  }

  /** Whole UTC days, both inclusive, as instants (`to` exclusive); each side defaults to this month. */
  private usageRange(query: UsageRangeQuery): UsageRange {
    const { from: monthFrom, to: monthTo } = monthRange(currentMonth());
    const from = query.from ? Date.parse(`${query.from}T00:00:00Z`) : monthFrom;
    const to = query.to ? Date.parse(`${query.to}T00:00:00Z`) + DAY_MS : monthTo;
    if (to <= from) throw new InvalidRequestError(`Invalid 'to': ${query.to ?? 'the end of this month'} is before 'from' (${query.from ?? 'the start of this month'}).`, 'to');
    return { from, to };
  }

  usageTotals(query: UsageRangeQuery): Promise<UsageTotals> {
    return this.deps.usage.totals(this.usageRange(query));
  }

  usageSeries(query: UsageRangeQuery & { bucket?: SeriesBucket; group_by?: SeriesGroup }): Promise<UsageSeries> {
    const range = this.usageRange(query);
    const bucket = query.bucket ?? 'day';
    if (bucket === 'hour' && range.to - range.from > MAX_HOURLY_DAYS * DAY_MS) {
      throw new InvalidRequestError(`Invalid 'bucket': an hourly series covers at most ${MAX_HOURLY_DAYS} days; narrow 'from' and 'to' or use bucket=day.`, 'bucket');
    }
    return this.deps.usage.series(range, bucket, query.group_by ?? 'provider');
  }

  async usageBreakdown(query: UsageRangeQuery & { group_by?: BreakdownGroup }): Promise<UsageBreakdown> {
    return this.deps.usage.breakdown(this.usageRange(query), query.group_by ?? 'model');
  }

  async usageLatency(query: UsageRangeQuery): Promise<{ data: LatencyRow[] }> {
    return { data: await this.deps.usage.latency(this.usageRange(query)) };
  }

  usageLog(query: UsageLogQuery): Promise<RequestLogPage> {
    const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (query.cursor !== undefined && cursor === null) {
      throw new InvalidRequestError("Invalid 'cursor': pass the next_cursor of the previous page unchanged, or leave it out for the first page.", 'cursor');
    }
    const filter = { status: query.status, model: query.model, provider: query.provider, keyId: query.key_id, session: query.session };
    return this.deps.usage.requestLog(this.usageRange(query), filter, query.limit ?? 50, cursor);
  }

  /** One session's requests, newest first; without a range, all of them. */
  usageSessionRequests(query: UsageLogQuery & { session: string }): Promise<RequestLogPage> {
    return this.usageLog({ from: '1970-01-01', to: new Date(Date.now() + DAY_MS).toISOString().slice(0, 10), ...query });
  }

  /** Sessions active in the range, the most recently active first, with their agents nested (the Sessions page, `patchbay usage --by session`). */
  async usageSessions(query: UsageLogQuery): Promise<SessionPage> {
    let cursor: { ts: number; session: string } | null = null;
    if (query.cursor !== undefined) {
      const match = /^(\d+)\.(.+)$/s.exec(Buffer.from(query.cursor, 'base64url').toString());
      if (!match) throw new InvalidRequestError("Invalid 'cursor': pass the next_cursor of the previous page unchanged, or leave it out for the first page.", 'cursor');
      cursor = { ts: Number(match[1]), session: match[2] };
    }
    const filter = { status: query.status, model: query.model, provider: query.provider, keyId: query.key_id, session: query.session };
    return this.deps.usage.sessions(this.usageRange(query), filter, query.limit ?? 50, cursor);
  }

  async usageRequest(requestId: string): Promise<RequestRow> {
    const row = await this.deps.usage.request(requestId);
    if (!row) {
      throw new PatchbayError(`No request has the id "${requestId}" (the X-Patchbay-Request-Id header of its answer).`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'request_not_found',
        param: 'request_id',
      });
    }
    return row;
  }

  setBaseUrl(url: string): void {
    this.baseUrl = url;
  }

  /** Live events (GET /api/events); returns the unsubscribe function. */
  subscribeEvents(listener: EventListener, onClose: () => void): () => void {
    if (!this.deps.events) throw new PatchbayError('Live events are not available in this mode.', { status: 404, type: 'invalid_request_error', code: 'unknown_url' });
    return this.deps.events.subscribe(listener, onClose);
  }

  private providerStatuses(): ProviderStatus[] {
    return [...this.deps.config.providers.values()].map((p) => {
      const health = summarizeProvider(this.deps.health, p.name);
      return {
        name: p.name,
        enabled: p.enabled,
        key_source: this.deps.secrets.source(p),
        requires_key: p.requiresKey,
        secret_withheld: this.deps.secrets.withheldReason(p) !== null,
        breaker: health.breaker === 'half-open' ? 'half_open' : health.breaker,
        latency_p50_ms: health.latencyP50,
        error_rate: health.errorRate,
        samples: health.samples,
        last_error: health.lastError ? { ...health.lastError, at: new Date(health.lastError.at).toISOString() } : null,
      };
    });
  }

  status() {
    return {
      status: 'ok',
      version: this.deps.version,
      base_url: this.baseUrl,
      providers: this.providerStatuses(),
      uptime_s: Math.round((Date.now() - this.deps.startedAt) / 1000),
      keychain: this.deps.secrets.available ? 'available' : 'unavailable',
      memory_mb: Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1e5) / 10])),
      ...(this.deps.idleMemory ? { idle_memory: this.deps.idleMemory() } : {}),
      strategy: this.deps.config.strategy,
      paused: this.deps.config.paused,
      endpoints: this.deps.health.snapshot(),
    };
  }
}

function toSettings(input: KeySettingsInput) {
  return {
    expiresAt: input.expires_at,
    allowedModels: input.allowed_models,
    monthlyTokenCap: input.monthly_token_cap,
    monthlyUsdCap: input.monthly_usd_cap,
    rpmLimit: input.rpm_limit,
    tpmLimit: input.tpm_limit,
  };
}
