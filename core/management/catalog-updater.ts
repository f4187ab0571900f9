import { buildUpdatedCatalog, DEFAULT_CATALOG_URL, type CatalogUpdate } from '../catalog/build-updated-catalog.ts';
import { chooseCatalog } from '../catalog/catalog-file.ts';
import type { CatalogData } from '../catalog/catalog-schema.ts';
import type { CatalogStore } from '../catalog/catalog-store.ts';
import type { ProviderModel } from '../catalog/discovered-endpoints.ts';
import { discoveredModels, readDiscoveryFile, writeDiscoveryFile, type DiscoveryCache } from '../catalog/discovery-file.ts';
import { fetchPriceTable } from '../catalog/fetch-price-table.ts';
import { readShippedCatalog } from '../catalog/load-catalog.ts';
import { priceDay } from '../catalog/prices-on-day.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import { discoverModels } from '../providers/discover-models.ts';

/** How often each provider's own list is read again: new models appear between Patchbay releases. */
export const DISCOVER_EVERY_MS = 6 * 60 * 60 * 1000;
/** How often the day is looked at, for the prices a table announced from it (usage rows are priced by their own day anyway). */
const PRICE_DAY_CHECK_MS = 60 * 1000;
/** Providers are asked one at a time; a slow one waits at most this long before the next is asked. */
const DISCOVER_ONE_TIMEOUT_MS = 20_000;

export interface CatalogUpdaterDeps {
  dataDir: string;
  store: CatalogStore;
  /** The price table's URL (config `catalog.url`), read at each update. */
  url: () => string | undefined;
  providers: () => Map<string, ResolvedProvider>;
  secret: (provider: ResolvedProvider) => string | undefined;
  connectTimeoutMs: () => number;
  log: (line: string) => void;
  /** The catalog data or the discovered lists changed: rebuild the router's catalog (loadCatalog(providers, data, discovered)). */
  changed: (state: CatalogState) => void;
  /** 0: no rounds after the first. */
  discoverEveryMs?: number;
  /** Read the lists once right after start (default: when discoverEveryMs is above 0). */
  discoverAtStart?: boolean;
  fetch?: typeof fetch;
  discover?: typeof discoverModels;
}

export interface CatalogState {
  data: CatalogData;
  discovered: Map<string, ProviderModel[]>;
}

/** What GET /api/catalog and `patchbay models` show. */
export interface CatalogStatus {
  prices_as_of: string;
  sources: CatalogData['sources'];
  /** True when the catalog came from an update (the data dir or the team's database), not the shipped file. */
  updated: boolean;
  url: string;
  discovered: { provider: string; fetched_at: string; models: number; error?: string }[];
}

/**
 * Keeps the catalog current while Patchbay runs, never on a request's path: `update()` fetches a
 * price table (the CLI's `patchbay models update`, the dashboard's button), and discovery reads
 * each keyed provider's own model list at start and every DISCOVER_EVERY_MS. Each change is
 * stored (the data dir, or PostgreSQL for every replica) and handed to `changed`, so the router
 * uses it without a restart. A failure says so in one line and keeps what it has.
 */
export class CatalogUpdater {
  private readonly deps: CatalogUpdaterDeps;
  private shipped: CatalogData = readShippedCatalog();
  private state: CatalogState = { data: this.shipped, discovered: new Map() };
  private cache: DiscoveryCache = {};
  private errors = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private dayTimer: NodeJS.Timeout | null = null;
  /** The UTC day the catalog in force was loaded for (its prices are that day's). */
  private day = priceDay(new Date());
  private discovering: Promise<void> | null = null;
  /** Cuts a round of discovery short when Patchbay stops. */
  private readonly stopping = new AbortController();
  /** The round of discovery started with Patchbay (null when none): tests wait for it. */
  firstDiscovery: Promise<void> | null = null;
  private updating: Promise<CatalogUpdate> | null = null;

  constructor(deps: CatalogUpdaterDeps) {
    this.deps = deps;
    deps.store.onChange = (data) => this.apply(chooseCatalog(this.shipped, data));
  }

  get current(): CatalogState {
    return this.state;
  }

  /** Reads what earlier runs stored (the updated catalog, the lists), then discovers in the background. */
  async start(): Promise<CatalogState> {
    const stored = await this.deps.store.load().catch((error: Error) => {
      this.deps.log(`Could not read the updated catalog (${error.message}); using the shipped one of ${this.shipped.pricesAsOf}.`);
      return null;
    });
    this.cache = await readDiscoveryFile(this.deps.dataDir);
    this.state = { data: chooseCatalog(this.shipped, stored), discovered: discoveredModels(this.cache) };
    const every = this.deps.discoverEveryMs ?? DISCOVER_EVERY_MS;
    if (every > 0) {
      // Unref'd: discovery never keeps a CLI command or a test alive.
      this.timer = setInterval(() => void this.discover(), every);
      this.timer.unref();
    }
    this.dayTimer = setInterval(() => this.checkPriceDay(), PRICE_DAY_CHECK_MS);
    this.dayTimer.unref();
    // After start returns: the first request never waits for a provider's list.
    if (this.deps.discoverAtStart ?? every > 0) this.firstDiscovery = new Promise((resolve) => setImmediate(resolve)).then(() => this.discover());
    return this.state;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.dayTimer) clearInterval(this.dayTimer);
    this.timer = null;
    this.dayTimer = null;
    this.stopping.abort();
  }

  /** Fetches, checks and stores a new table; throws CatalogUpdateError (offline, refused) and keeps the catalog in use. */
  update(url = this.deps.url() ?? DEFAULT_CATALOG_URL): Promise<CatalogUpdate> {
    // One update at a time: a second click waits for the first's answer.
    this.updating ??= (async () => {
      try {
        const fetched = await fetchPriceTable(url, { fetch: this.deps.fetch });
        const update = await buildUpdatedCatalog(fetched, url, this.state.data);
        await this.deps.store.save(update.data);
        this.apply(update.data);
        return update;
      } finally {
        this.updating = null;
      }
    })();
    return this.updating;
  }

  /** Reads each keyed built-in provider's list, one after the other; a provider that fails keeps its last list. */
  discover(): Promise<void> {
    this.discovering ??= (async () => {
      try {
        const discover = this.deps.discover ?? discoverModels;
        let changed = false;
        for (const provider of this.deps.providers().values()) {
          if (this.stopping.signal.aborted) return;
          if (!provider.builtin || !provider.enabled) continue;
          const secret = this.deps.secret(provider);
          if (provider.requiresKey && !secret) continue;
          try {
            const models = await withTimeout(discover(provider, secret, this.deps.connectTimeoutMs(), this.stopping.signal), DISCOVER_ONE_TIMEOUT_MS, provider.name);
            this.cache[provider.name] = { fetchedAt: new Date().toISOString(), models };
            this.errors.delete(provider.name);
            changed = true;
          } catch (error) {
            if (this.stopping.signal.aborted) return;
            const message = (error as Error).message;
            if (this.errors.get(provider.name) !== message) this.deps.log(`Model discovery: ${message} Keeping its last list.`);
            this.errors.set(provider.name, message);
          }
        }
        if (!changed) return;
        await writeDiscoveryFile(this.deps.dataDir, this.cache).catch((error: Error) => this.deps.log(`Could not cache the discovered models: ${error.message}`));
        this.state = { data: this.state.data, discovered: discoveredModels(this.cache) };
        this.deps.changed(this.state);
      } finally {
        this.discovering = null;
      }
    })();
    return this.discovering;
  }

  status(): CatalogStatus {
    const { data } = this.state;
    return {
      prices_as_of: data.pricesAsOf,
      sources: data.sources,
      updated: data !== this.shipped,
      url: this.deps.url() ?? DEFAULT_CATALOG_URL,
      discovered: [...new Set([...Object.keys(this.cache), ...this.errors.keys()])].map((provider) => ({
        provider,
        fetched_at: this.cache[provider]?.fetchedAt ?? '',
        models: this.cache[provider]?.models.length ?? 0,
        ...(this.errors.has(provider) ? { error: this.errors.get(provider) } : {}),
      })),
    };
  }

  /**
   * When a new UTC day has begun and the table announced prices from it (laterPrices), the catalog
   * is put in force again, so routing by cost and the model list use them too (each minute, by the
   * timer; tests call it). True when it did.
   */
  checkPriceDay(now = new Date()): boolean {
    const day = priceDay(now);
    if (day === this.day) return false;
    const since = this.day;
    this.day = day;
    const begins = this.state.data.endpoints.some((e) => e.laterPrices?.some((later) => later.from > since && later.from <= day));
    if (!begins) return false;
    this.deps.log(`Prices the price table announced for ${day} are in force.`);
    this.deps.changed(this.state);
    return true;
  }

  private apply(data: CatalogData): void {
    if (data === this.state.data) return;
    this.state = { data, discovered: this.state.discovered };
    this.deps.changed(this.state);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, provider: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Could not list ${provider}'s models: no answer within ${ms / 1000} s.`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
