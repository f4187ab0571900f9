// `npm run app` (development: build core, renderer and electron/, then start Electron) and
// `npm run dist` (installers into dist-app/ with electron-builder). Electron's binary is fetched on
// first use; where its download host is unreachable both stop with one message saying so.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const electronDir = join(root, 'node_modules', 'electron');
const out = join(root, 'dist-electron');

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The Electron binary, downloading it first if needed (electron's own install.js); exits with a clear message when it cannot. */
function ensureElectronBinary() {
  if (existsSync(join(electronDir, 'path.txt')) && existsSync(join(electronDir, 'dist'))) return;
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  process.stderr.write(`Fetching the Electron binary (first use) from ${mirror} ...\n`);
  const install = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', timeout: 300_000 });
  if (install.status !== 0 || !existsSync(join(electronDir, 'path.txt'))) {
    fail(`The Electron binary could not be downloaded from ${mirror}: this machine cannot reach it (${(install.stderr || 'no answer').trim().split('\n').at(-1)}). On a desktop with internet access run npm run app (or set ELECTRON_MIRROR).`);
  }
}

/** core/ and electron/ compiled together into dist-electron/ (the app's own folder), plus what they read at run time. */
function buildElectron() {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'build', 'tsconfig.electron.json'), '--noCheck'], { cwd: root, encoding: 'utf8' });
  if (tsc.status !== 0) fail(`Compiling electron/ failed:\n${tsc.stdout}${tsc.stderr}`);
  // The preload must be CommonJS (sandboxed preloads cannot be ES modules): tsc emits preload.cjs from preload.cts.
  copyFileSync(join(root, 'core', 'catalog', 'catalog.json'), join(out, 'core', 'catalog', 'catalog.json'));
  // The snapshots `patchbay models update` builds a fetched price table with (core/catalog/sources/README.md).
  cpSync(join(root, 'core', 'catalog', 'sources'), join(out, 'core', 'catalog', 'sources'), { recursive: true });
  mkdirSync(join(out, 'bin'), { recursive: true });
  copyFileSync(join(root, 'bin', 'node-flags.js'), join(out, 'bin', 'node-flags.js'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dependencies = pkg.dependencies;
  writeFileSync(
    join(out, 'package.json'),
    `${JSON.stringify({ name: 'patchbay-desktop', productName: 'Patchbay', version: pkg.version, description: pkg.description, license: pkg.license, author: 'Patchbay', private: true, type: 'module', main: 'electron/main.js', dependencies }, null, 2)}\n`,
  );
}

async function buildFirst() {
  const { buildCore } = await import('./build-core.js');
  buildCore();
  const renderer = spawnSync(process.execPath, [join(root, 'scripts', 'build-renderer.js')], { cwd: root, stdio: 'inherit' });
  if (renderer.status !== 0) fail('Building the dashboard (scripts/build-renderer.js) failed; see above.');
  mkdirSync(out, { recursive: true });
  buildElectron();
}

const command = process.argv[2];
if (command === 'app') {
  await buildFirst();
  ensureElectronBinary();
  const electron = require(electronDir);
  const run = spawnSync(electron, [join(out, 'electron', 'main.js')], { cwd: root, stdio: 'inherit' });
  process.exit(run.status ?? 1);
} else if (command === 'dist') {
  await buildFirst();
  ensureElectronBinary();
  // electron-builder installs the production dependencies into dist-electron/ and rebuilds the
  // native ones (better-sqlite3, @napi-rs/keyring) for Electron's ABI there: the repo's
  // node_modules keep their Node build, which npm test uses.
  const builder = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-builder', 'cli.js'), '--config', join(root, 'build', 'electron-builder.json'), '--publish', 'never', ...process.argv.slice(3)], { cwd: root, stdio: 'inherit' });
  process.exit(builder.status ?? 1);
} else {
  fail('Usage: node scripts/desktop.js app|dist');
}
