// Compiles core/ to plain JavaScript in dist/ (or another folder), for `npm start` and the
// benchmark: Node then runs JavaScript instead of stripping types at start-up, which keeps the
// type-stripping compiler (and its WebAssembly memory) out of the server and its writer thread:
// ~45 MB less RSS and ~200 ms faster start (README, "Development"). Tests run the sources.
//
//   node scripts/build-core.js [outDir]     build now
//   import { ensureCoreBuilt } ...          build only when a source is newer than the last build
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const STAMP = '.built';

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Builds core/ into outDir; returns outDir. Throws with the compiler's output when it fails. */
export function buildCore(outDir = join(root, 'dist'), node = process.execPath) {
  const out = resolve(outDir);
  // Emit only: `npm run typecheck` and the tests are where types are checked.
  const tsc = spawnSync(node, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--noCheck', '--outDir', out], { cwd: root, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`Compiling core/ failed:\n${tsc.stdout}${tsc.stderr}`);
  // What the compiled code reads next to itself: the catalog, and the package's name and version.
  copyFileSync(join(root, 'core', 'catalog', 'catalog.json'), join(out, 'core', 'catalog', 'catalog.json'));
  // The snapshots `patchbay models update` builds a fetched price table with (core/catalog/sources/README.md).
  cpSync(join(root, 'core', 'catalog', 'sources'), join(out, 'core', 'catalog', 'sources'), { recursive: true });
  const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ name, version, private: true, type: 'module' }, null, 2)}\n`);
  writeFileSync(join(out, STAMP), new Date().toISOString());
  return out;
}

/** Builds dist/ when it is missing or older than any file under core/ or the build settings. */
export function ensureCoreBuilt(node = process.execPath) {
  const out = join(root, 'dist');
  const built = mtime(join(out, STAMP));
  const newest = Math.max(newestSource(join(root, 'core')), mtime(join(root, 'package.json')), mtime(join(root, 'tsconfig.json')), mtime(join(root, 'tsconfig.build.json')));
  if (built > newest) return out;
  mkdirSync(out, { recursive: true });
  return buildCore(out, node);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${buildCore(process.argv[2])}\n`);
}
