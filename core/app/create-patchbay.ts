import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfigFile, type PatchbayConfig } from '../config/load-config.ts';
import { applyConfig } from '../management/apply-config-change.ts';
import { createRequestListener } from '../http/create-http-app.ts';
import { DashboardSessions } from '../http/dashboard-sessions.ts';
import type { DashboardSignIn } from '../stores/dashboard-sign-in.ts';
import { startHttpServer, stopHttpServer } from '../http/http-server.ts';
import { KeyLimiter } from '../keys/key-limiter.ts';
import { setUpstreamLimits } from '../providers/upstream-limits.ts';
import { createManagement } from '../management/create-management.ts';
import { HealthTracker } from '../routing/health-tracker.ts';
import { loadAdminToken } from '../secrets/admin-token.ts';
import { createRouter } from './create-router.ts';
import { startCatalog } from './start-catalog.ts';
import { tightenPermissions } from './tighten-permissions.ts';
import { IdleMemory } from '../runtime/idle-memory.ts';
import { announceServer, lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { resolveListenAddresses } from './listen-addresses.ts';
import { createFrontDoor } from './create-front-door.ts';
import { drainThenClose } from './drain-then-close.ts';
import { createsFirstKey, firstKeyNotice } from '../keys/first-key.ts';
import { seedHealth } from '../routing/seed-health.ts';
import { openProviderSecrets } from './open-provider-secrets.ts';
import { readSecretsFile } from '../secrets/read-secrets-file.ts';
import { closeTokenCounter } from '../tokens/count-tokens.ts';
import { openStorage } from './open-storage.ts';
import type { Stores } from '../stores/stores.ts';
import { EventHub } from '../events/event-hub.ts';
import { connectEvents } from './connect-events.ts';
import { readVersion } from '../runtime/read-version.ts';
import type { Patchbay, PatchbayOptions } from './patchbay.ts';
import { Telemetry } from '../telemetry/telemetry.ts';

/** How long a shutdown waits for in-flight requests before cutting them. */
export const SHUTDOWN_GRACE_MS = 30_000;


/** The one composition root: the CLI, the desktop app and every integration test start Patchbay here. */
export async function createPatchbay(options: PatchbayOptions): Promise<Patchbay> {
  const log = options.log ?? ((message: string) => console.error(message));
  // First: a secrets file others can read stops the start before anything is opened.
  const fileSecrets = options.secretsFile ? readSecretsFile(options.secretsFile) : null;
  const config = loadConfigFile(options.configPath ?? join(options.dataDir, 'config.json'), { required: options.configPath !== undefined });
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Before anything opens the database: one data dir, one server.
  const lock = lockDataDir(options.dataDir);
  try {
    return await startPatchbay(options, log, config, lock, fileSecrets);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startPatchbay(options: PatchbayOptions, log: (message: string) => void, fileConfig: PatchbayConfig, lock: DataDirLock, fileSecrets: Record<string, string> | null): Promise<Patchbay> {
  const permissionsNotice = tightenPermissions(options.dataDir);
  if (permissionsNotice) log(permissionsNotice);
  const host = options.host ?? fileConfig.host;
  setUpstreamLimits(options.limits);
  const events = new EventHub();
  const configPath = options.configPath ?? join(options.dataDir, 'config.json');
  const storage = await openStorage({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl ?? (fileSecrets?.PATCHBAY_DATABASE_URL || undefined),
    configPath,
    configRequired: options.configPath !== undefined,
    fileConfig,
    events,
    now: options.dashboard?.now,
    log,
  });
  const { stores, team, configStore, config } = storage;
  const { keys, usage } = stores;
  const file = fileSecrets && options.secretsFile ? { path: options.secretsFile, secrets: fileSecrets } : null;
  const secrets = openProviderSecrets({ env: options.env ?? process.env, file, team: stores.postgres !== null, keychainService: options.keychainService, log });
  // Pass-through ids (any model of a user-defined provider) are not in the catalog: their health expires.
  const health = new HealthTracker({ ...config.breaker, windowSize: config.healthWindow.size, windowMs: config.healthWindow.maxAgeMs }, options.healthClock ?? Date.now, (id) => catalog.endpoints.has(id));
  const { catalog, router } = createRouter(config, secrets, health);
  // An updated catalog stored earlier, then the providers' own lists (in the background).
  const models = await startCatalog({ dataDir: options.dataDir, config, catalog, secrets, store: team?.catalog, discovery: options.discovery ?? true, log });
  seedHealth(health, await stores.reader.recentAttempts(Date.now() - config.healthWindow.maxAgeMs));
  const interfaces = networkInterfaces();
  const { hostGuard, publicOrigin, lifecycle } = createFrontDoor(config, host, interfaces);
  const limiter = new KeyLimiter(stores.ledger, Date.now, { rates: stores.rates, capsWhenUnreachable: config.capsWhenDatabaseUnreachable, log });
  connectEvents(events, health, limiter);
  const telemetry = new Telemetry({ dataDir: options.dataDir, env: options.env ?? process.env, version: readVersion(), log });
  // Idle memory: each routed request's usage row marks activity (one counter increment); the
  // dashboard's /api polling does not, so an open dashboard never wakes it.
  let drainRequests: () => Promise<void> = async () => undefined;
  const idleMemory = new IdleMemory({
    afterMs: options.idleCollectAfterMs,
    inFlight: () => drainRequests(),
    release: () => stores.sqlite?.usage.releaseMemory(),
    log,
  });
  const management = createManagement({
    config,
    configPath,
    configStore,
    catalog,
    router,
    keys,
    usage: stores.reader,
    secrets,
    health,
    limiter,
    events,
    version: readVersion(),
    startedAt: Date.now(),
    onRoutingChange: (routing) => events.emit('routing', routing),
    idleMemory: () => idleMemory.stats(),
    telemetry,
    models,
  });
  const adminToken = loadAdminToken(options.dataDir);
  // One machine: in memory only (restarting Patchbay signs every dashboard out). A team: in PostgreSQL.
  const sessions: DashboardSignIn = team?.sessions ?? new DashboardSessions({ now: options.dashboard?.now });
  // Another replica's change: the secrets stay bound to where each provider pointed (as for a change made here), then it applies.
  configStore.onChange = (next) => {
    for (const provider of config.providers.values()) secrets.pin(provider);
    applyConfig({ config, catalog }, next.config);
    config.paused = next.paused;
    void telemetry.apply(config.telemetry).catch((error: unknown) => log(`Telemetry could not restart: ${String(error)}`));
    events.emit('routing', management.getRouting());
  };
  try {
    await team?.start();
    await telemetry.apply(config.telemetry);
  } catch (error) {
    await telemetry.close();
    models.stop();
    await storage.close();
    throw error;
  }
  const activeUsage: typeof usage = {
    record: (row) => {
      idleMemory.touch();
      usage.record(row);
    },
    recordContent: (entry) => usage.recordContent(entry),
    flushAsync: () => usage.flushAsync(),
    close: () => usage.close(),
  };
  const { listener, upgrade, closeWebSockets, drain } = createRequestListener({ config, catalog, router, keys, limiter, usage: activeUsage, health, hostGuard, publicOrigin, lifecycle, management, adminToken, log, sessions, telemetry, dashboardDir: options.dashboard?.dir });
  drainRequests = drain;

  const firstKey = createsFirstKey(stores.backend) ? ((await keys.createIfNone({ name: 'default' }))?.secret ?? null) : null;
  const noKeyYet = firstKeyNotice(stores.backend, firstKey ? 1 : await keys.count());
  if (noKeyYet) log(noKeyYet);

  let server: Server;
  try {
    server = await startHttpServer(listener, config, { port: options.port ?? config.port, host }, upgrade);
  } catch (error) {
    // Not listening (the port is taken, say): release what was opened, so a caller that retries
    // on another port (the desktop app) holds one database and one writer thread, not two.
    events.close();
    await telemetry.close();
    models.stop();
    await storage.close();
    await closeTokenCounter();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const { url, urls, exposed } = resolveListenAddresses(host, port, interfaces);
  // Behind a proxy, every link and snippet points where people reach Patchbay, not at this replica.
  const linkBase = config.publicUrl ?? url;
  management.setBaseUrl(`${linkBase}/v1`);
  telemetry.setBaseUrl(url);
  // Lets the CLI find this server and manage it through its API while it runs.
  const serverFile = join(options.dataDir, 'server.json');
  writeFileSync(serverFile, JSON.stringify({ url, pid: process.pid, config: resolve(configPath) /* the file agents set writes */ }), { mode: 0o600 });
  lock.listening(url, port);
  const unannounce = options.announce ? announceServer(options.env ?? process.env, { url, data_dir: options.dataDir }) : () => undefined;

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      lifecycle.beginStop();
      rmSync(serverFile, { force: true });
      unannounce();
      idleMemory.close();
      models.stop();
      events.close();
      await Promise.all([closeWebSockets(options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS), stopHttpServer(server, options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS)]);
      // Requests cut at the deadline still finish their bookkeeping: wait for it, then save.
      await drain();
      // After the last request's span ended: what is queued is sent (bounded by the export timeout).
      await telemetry.close();
      await storage.close();
      await closeTokenCounter();
      lock.release();
    })();
    return closing;
  };
  return {
    url,
    urls,
    exposed,
    adminToken,
    management,
    events,
    telemetry,
    host,
    port,
    config,
    catalog,
    stores,
    get db() {
      return sqliteOnly(stores).db;
    },
    get keys() {
      return sqliteOnly(stores).keys;
    },
    get usage() {
      return sqliteOnly(stores).usage;
    },
    health,
    models,
    firstKey,
    publicUrl: config.publicUrl,
    database: stores.postgres?.shownAs ?? null,
    lifecycle,
    createSignInUrl: () => {
      if (!(sessions instanceof DashboardSessions)) throw new Error('This Patchbay keeps sign-in codes in PostgreSQL: use signInLink().');
      return `${url}/ui/#code=${sessions.createCode().code}`;
    },
    signInLink: async () => `${linkBase}/ui/#code=${(await sessions.createCode()).code}`,
    shutdown: drainThenClose(lifecycle, close, log),
    close,
  };
}

function sqliteOnly(stores: Stores): NonNullable<Stores['sqlite']> {
  if (!stores.sqlite) throw new Error('This Patchbay runs on PostgreSQL: use patchbay.stores, not the SQLite handles.');
  return stores.sqlite;
}
