import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileCatalogStore, type CatalogStore } from '../catalog/catalog-store.ts';
import { CatalogUpdateError } from '../catalog/fetch-price-table.ts';
import { loadConfigFile } from '../config/load-config.ts';
import { callManagementApi, ManagementApiError } from '../management/call-management-api.ts';
import { CatalogUpdater, type CatalogStatus } from '../management/catalog-updater.ts';
import type { ManagedModel } from '../management/list-managed-models.ts';
import { loadAdminToken } from '../secrets/admin-token.ts';
import type { CliIo } from './cli-io.ts';
import { findConfigPath } from './find-config-path.ts';
import { findDataDir } from './find-data-dir.ts';
import { formatTable } from './format-table.ts';
import { parseCommand } from './parse-command.ts';
import { provenServer } from './proven-server.ts';
import { UsageError } from './usage-error.ts';

/** `patchbay models` and `patchbay models update`: through the running server's /api, else on the data dir itself. */
export async function runModelsCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand(args, { json: { type: 'boolean' }, url: { type: 'string' } });
  const action = positionals[0] ?? 'list';
  if (action !== 'list' && action !== 'update') throw new UsageError(`Unknown models command "${action}". Use: patchbay models [list] | update [--url URL].`);
  const dataDir = findDataDir(values, io.env, io.err);
  const server = await runningServer(dataDir);
  const url = values.url as string | undefined;
  if (url !== undefined && !/^https?:\/\//.test(url)) throw new UsageError('--url must be an http(s) URL.');

  if (action === 'update') {
    try {
      const summary = server ? await callServer(server, 'POST', '/catalog/update', url ? { url } : {}) : await updateOffline(dataDir, values.config as string | undefined, url, io);
      io.out(`Updated the catalog: ${(summary as { summary: string }).summary}.\n`);
      return 0;
    } catch (error) {
      // One line, and the catalog in use stays: offline is a normal state for a laptop.
      if (error instanceof CatalogUpdateError || error instanceof ManagementApiError) {
        io.err(`${error.message}\n`);
        return 1;
      }
      throw error;
    }
  }

  const status = server ? ((await callServer(server, 'GET', '/catalog')) as CatalogStatus) : null;
  const models = server ? ((await callServer(server, 'GET', '/models')) as { data: ManagedModel[] }).data : null;
  if (!status || !models) {
    io.err('Patchbay is not running: start it with "patchbay serve" to list the models it serves (discovered ones included).\n');
    return 1;
  }
  if (values.json) {
    io.out(`${JSON.stringify({ ...status, data: models }, null, 2)}\n`);
    return 0;
  }
  const source = status.sources?.[0];
  io.out(`Prices as of ${status.prices_as_of}${source ? ` (${source.name} ${source.version})` : ''}${status.updated ? ', updated' : ''}; USD per million tokens.\n`);
  const price = (value: number | null) => (value === null ? 'unknown' : String(value));
  const rows = models.filter((m) => m.kind === 'model' && m.enabled).map((m) => [m.id, m.context_window ? String(m.context_window) : 'unknown', price(m.input_price), price(m.output_price)]);
  io.out(formatTable(['MODEL', 'WINDOW', 'INPUT', 'OUTPUT'], rows));
  return 0;
}

/**
 * The server this data dir's server.json names, once it has proven to be that server (the admin
 * token goes to nothing else, as in connect-management.ts); null when none runs (a stale file).
 */
async function runningServer(dataDir: string): Promise<{ url: string; token: string } | null> {
  const file = join(dataDir, 'server.json');
  if (!existsSync(file)) return null;
  try {
    const server = { url: (JSON.parse(readFileSync(file, 'utf8')) as { url: string }).url, token: loadAdminToken(dataDir) };
    await provenServer(server.url, server.token, dataDir);
    return server;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return null;
  }
}

async function callServer(server: { url: string; token: string }, method: string, path: string, body?: unknown): Promise<unknown> {
  return JSON.parse(await callManagementApi(server.url, server.token, { method, path, body, timeoutMs: 120_000 }));
}

/** No server runs here: fetch into the data dir (or the team's database, PATCHBAY_DATABASE_URL, whose replicas take it at once); the next start reads it. */
async function updateOffline(dataDir: string, configPath: string | undefined, url: string | undefined, io: CliIo): Promise<{ summary: string }> {
  const { path, required } = findConfigPath({ config: configPath }, dataDir);
  const config = loadConfigFile(path, { required });
  const log = (line: string) => io.err(`${line}\n`);
  const databaseUrl = io.env.PATCHBAY_DATABASE_URL || undefined;
  const team = databaseUrl ? await (await import('../postgres/postgres-catalog-store.ts')).openPostgresCatalogStore(databaseUrl, log) : null;
  try {
    return await fetchInto(dataDir, config, url, team?.store ?? new FileCatalogStore(dataDir, log), log);
  } finally {
    await team?.close();
  }
}

async function fetchInto(dataDir: string, config: ReturnType<typeof loadConfigFile>, url: string | undefined, store: CatalogStore, log: (line: string) => void): Promise<{ summary: string }> {
  const updater = new CatalogUpdater({
    dataDir,
    store,
    url: () => url ?? config.catalogUrl,
    providers: () => new Map(),
    secret: () => undefined,
    connectTimeoutMs: () => config.connectTimeoutMs,
    log,
    changed: () => undefined,
    discoverEveryMs: 0,
  });
  await updater.start();
  return updater.update();
}
