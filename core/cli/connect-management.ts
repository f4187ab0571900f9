import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { join } from 'node:path';
import { readVersion } from '../runtime/read-version.ts';
import { createRouter } from '../app/create-router.ts';
import { loadAdminToken } from '../secrets/admin-token.ts';
import { findConfigPath } from './find-config-path.ts';
import { findDataDir } from './find-data-dir.ts';
import { provenServer } from './proven-server.ts';
import { loadConfigFile, readConfigFile } from '../config/load-config.ts';
import { KeyStore } from '../keys/key-store.ts';
import { createKeySchema, explainRouteSchema, keySettingsSchema, providerKeyLabelSchema, providerSecretSchema, routingSettingsSchema, usageSessionsQuerySchema } from '../management/management-schemas.ts';
import { callManagementApi, ManagementApiError } from '../management/call-management-api.ts';
import { createManagement, type Management as Service } from '../management/create-management.ts';
import { validateBody } from '../http/validate-body.ts';
import { HealthTracker } from '../routing/health-tracker.ts';
import { KeychainSecretStore } from '../secrets/keychain-secret-store.ts';
import { openDatabase } from '../sqlite/open-database.ts';
import { UsageStore } from '../usage/usage-store.ts';
import { SqliteUsageReader } from '../usage/sqlite-usage-reader.ts';
import { SqliteKeyBackend } from '../keys/sqlite-key-backend.ts';
import { UsageError } from './usage-error.ts';
import { EventHub } from '../events/event-hub.ts';

type Async<F extends (...args: never[]) => unknown> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;

/**
 * The management operations the CLI uses, whether the server runs or not. Inputs are in the API's
 * wire form (an expiry is the text the user typed, not the parsed time), because the server
 * validates and parses them itself; the offline path runs the same validation (see createLocalManagement).
 */
export type Management = {
  [K in 'listKeys' | 'rotateKey' | 'revokeKey' | 'listProviders' | 'setProviderSecret' | 'deleteProviderSecret' | 'testProvider' | 'getRouting' | 'usageSummary' | 'exportUsage']: Async<Service[K]>;
} & {
  createKey: (input: z.input<typeof createKeySchema>) => Promise<Awaited<ReturnType<Service['createKey']>>>;
  updateKey: (id: string, input: z.input<typeof keySettingsSchema>) => Promise<Awaited<ReturnType<Service['updateKey']>>>;
  setRouting: (input: z.input<typeof routingSettingsSchema>) => Promise<Awaited<ReturnType<Service['setRouting']>>>;
  explainRoute: (input: z.input<typeof explainRouteSchema>) => Promise<Awaited<ReturnType<Service['explainRoute']>>>;
  usageSessions: (query: { from: string; to: string; limit: number }) => Promise<Awaited<ReturnType<Service['usageSessions']>>>;
};

export interface ManagementConnection {
  management: Management;
  /** "server" when a running Patchbay answered, "offline" when the CLI works on the data dir itself. */
  mode: 'server' | 'offline';
  /** Offline on a team's PostgreSQL (PATCHBAY_DATABASE_URL): a routing change or pause reaches every running replica. */
  team?: boolean;
  /** Awaited: a PostgreSQL pool left open would keep the CLI running. */
  close(): void | Promise<void>;
}

/**
 * Connects the CLI to the management API of a running Patchbay (found through DATA_DIR/server.json,
 * authenticated with DATA_DIR/admin-token); when none runs, it opens the same management operations on
 * the data dir directly. Either way each command runs the one implementation behind /api.
 */
export async function connectManagement(values: { 'data-dir'?: string; config?: string }, env: NodeJS.ProcessEnv, say?: (message: string) => void): Promise<ManagementConnection> {
  const dataDir = findDataDir(values, env, say);
  const serverFile = join(dataDir, 'server.json');
  if (existsSync(serverFile)) {
    try {
      const { url } = JSON.parse(readFileSync(serverFile, 'utf8')) as { url: string };
      const token = loadAdminToken(dataDir);
      await provenServer(url, token, dataDir);
      const client = createHttpManagement(url, token);
      await client.getRouting();
      return { management: client, mode: 'server', close: () => undefined };
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // A stale server.json (the server died): fall through to offline mode.
    }
  }
  // The file the server read when it last ran on this data dir (`serve --config FILE`), as every command uses.
  const { path: configPath, required } = findConfigPath(values, dataDir);
  let config = loadConfigFile(configPath, { required });
  const databaseUrl = env.PATCHBAY_DATABASE_URL || undefined;
  // A team's database (PATCHBAY_DATABASE_URL): the same stores the replicas use. Otherwise the data dir's SQLite file.
  const postgres = databaseUrl ? await (await import('../postgres/open-postgres-stores.ts')).openPostgresStores({ url: databaseUrl, log: () => undefined, events: new EventHub() }) : null;
  // And the team's config: a routing change made here reaches every running replica.
  const team = postgres?.postgres
    ? (await import('../postgres/open-postgres-settings.ts')).openPostgresSettings({
        ...postgres.postgres,
        configPath,
        fileRaw: readConfigFile(configPath, { required: values.config !== undefined }),
        hub: new EventHub(),
        log: () => undefined,
      })
    : null;
  if (team) {
    const settings = await team.config.load();
    config = settings.config;
    config.paused = settings.paused;
  }
  const db = postgres ? null : openDatabase(dataDir);
  const secrets = new KeychainSecretStore(env, env.PATCHBAY_KEYCHAIN_SERVICE || undefined);
  const health = new HealthTracker({ ...config.breaker, windowSize: config.healthWindow.size, windowMs: config.healthWindow.maxAgeMs });
  const { catalog, router } = createRouter(config, secrets, health);
  const service = createManagement({
    config,
    configPath,
    configStore: team?.config,
    catalog,
    router,
    keys: postgres ? postgres.keys : new SqliteKeyBackend(new KeyStore(db!)),
    usage: postgres ? postgres.reader : new SqliteUsageReader(new UsageStore(db!)),
    secrets,
    health,
    version: readVersion(),
    startedAt: Date.now(),
  });
  const management = createLocalManagement(service);
  return {
    management,
    mode: 'offline',
    team: team !== null,
    close: async () => {
      await team?.close();
      if (postgres) await postgres.close();
      else db!.close();
    },
  };
}

/** What POST /api/session/code answers: a one-time dashboard sign-in code and its link. */
export interface SignInLink {
  code: string;
  url: string;
  expires_at: string;
}

/**
 * Asks the running Patchbay for a fresh dashboard sign-in link. Null when none runs (no
 * server.json, or nothing answers at its address): sessions live in the server's memory, so
 * there is nothing to sign in to without it.
 */
export async function requestSignInLink(values: { 'data-dir'?: string }, env: NodeJS.ProcessEnv, say?: (message: string) => void): Promise<SignInLink | null> {
  const dataDir = findDataDir(values, env, say);
  const serverFile = join(dataDir, 'server.json');
  if (!existsSync(serverFile)) return null;
  let url: string;
  try {
    ({ url } = JSON.parse(readFileSync(serverFile, 'utf8')) as { url: string });
  } catch {
    return null;
  }
  let text: string;
  try {
    const token = loadAdminToken(dataDir);
    await provenServer(url, token, dataDir);
    text = await callManagementApi(url, token, { method: 'POST', path: '/session/code', timeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof ManagementApiError) throw new UsageError(`Patchbay at ${url} refused a sign-in link: ${error.message}`);
    // A stale server.json: the server died without removing it.
    return null;
  }
  return JSON.parse(text) as SignInLink;
}

/**
 * The service called in this process, with each input validated by the schema /api validates it
 * with, so a command's answer (and its mistakes' messages) are the same as through a running server.
 */
function createLocalManagement(service: Service): Management {
  return {
    listKeys: async () => service.listKeys(),
    createKey: async (input) => service.createKey(validateBody(createKeySchema, input)),
    updateKey: async (id, input) => service.updateKey(id, validateBody(keySettingsSchema, input)),
    rotateKey: async (id) => service.rotateKey(id),
    revokeKey: async (id) => service.revokeKey(id),
    listProviders: async () => service.listProviders(),
    setProviderSecret: async (name, secret, label) => service.setProviderSecret(name, validateBody(providerSecretSchema, { secret }).secret, label === undefined ? undefined : validateBody(providerKeyLabelSchema, { label }).label),
    deleteProviderSecret: async (name, label) => service.deleteProviderSecret(name, label === undefined ? undefined : validateBody(providerKeyLabelSchema, { label }).label),
    testProvider: (name) => service.testProvider(name),
    getRouting: async () => service.getRouting(),
    setRouting: async (input) => service.setRouting(validateBody(routingSettingsSchema, input)),
    explainRoute: async (input) => service.explainRoute(validateBody(explainRouteSchema, input)),
    usageSummary: async (month, groupBy) => service.usageSummary(month, groupBy),
    exportUsage: async (month, format) => service.exportUsage(month, format),
    usageSessions: async (q) => service.usageSessions(validateBody(usageSessionsQuerySchema, { ...q, limit: String(q.limit) })),
  };
}

function createHttpManagement(baseUrl: string, token: string): Management {
  const call = async (method: string, path: string, body?: unknown, raw = false) => {
    let text: string;
    try {
      text = await callManagementApi(baseUrl, token, { method, path, body, timeoutMs: 60_000 });
    } catch (error) {
      throw error instanceof ManagementApiError ? new UsageError(error.message) : error;
    }
    return raw ? text : JSON.parse(text);
  };
  const enc = encodeURIComponent;
  const query = (params: Record<string, string | number | undefined>) => {
    const entries = Object.entries(params).filter(([, v]) => v !== undefined) as [string, string][];
    return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)]))}` : '';
  };
  return {
    listKeys: async () => (await call('GET', '/keys')).data,
    createKey: (input) => call('POST', '/keys', input),
    updateKey: (id, input) => call('PATCH', `/keys/${enc(id)}`, input),
    rotateKey: (id) => call('POST', `/keys/${enc(id)}/rotate`),
    revokeKey: (id) => call('POST', `/keys/${enc(id)}/revoke`),
    listProviders: async () => (await call('GET', '/providers')).data,
    setProviderSecret: (name, secret, label) => call('PUT', label === undefined ? `/providers/${enc(name)}/secret` : `/providers/${enc(name)}/secrets/${enc(label)}`, { secret }),
    deleteProviderSecret: (name, label) => call('DELETE', label === undefined ? `/providers/${enc(name)}/secret` : `/providers/${enc(name)}/secrets/${enc(label)}`),
    testProvider: (name) => call('POST', `/providers/${enc(name)}/test`),
    getRouting: () => call('GET', '/routing'),
    setRouting: (input) => call('PUT', '/routing', input),
    explainRoute: (input) => call('POST', '/routing/explain', input),
    usageSummary: (month, groupBy) => call('GET', `/usage${query({ month, group_by: groupBy })}`),
    exportUsage: (month, format) => call('GET', `/usage/export${query({ month, format })}`, undefined, true),
    usageSessions: (q) => call('GET', `/usage/sessions${query(q)}`),
  };
}
