// Builds the dashboard (renderer/) into renderer/dist/ with Vite, for core to serve at /ui/.
//
//   node scripts/build-renderer.js          build now
//   import { ensureRendererBuilt } ...      build only when a source is newer than the last build
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const renderer = join(root, 'renderer');
const dist = join(renderer, 'dist');
const STAMP = '.built';

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // The output and anything installed do not count as sources.
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
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

/** Runs `vite build` with the given Node; returns renderer/dist. Throws with Vite's output when it fails. */
export function buildRenderer(node = process.execPath) {
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const run = spawnSync(node, [vite, 'build', '--config', join(renderer, 'vite.config.ts'), '--logLevel', 'warn'], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`Building the dashboard (renderer/) failed:\n${run.stdout}${run.stderr}`);
  writeFileSync(join(dist, STAMP), new Date().toISOString());
  return dist;
}

/**
 * Builds renderer/dist when it is missing or older than any file under renderer/ or the shared
 * request schemas the forms validate with (core/management/management-schemas.ts and the config
 * schema it imports).
 */
export function ensureRendererBuilt(node = process.execPath) {
  const built = mtime(join(dist, STAMP));
  const newest = Math.max(
    newestSource(renderer),
    mtime(join(root, 'core', 'management', 'management-schemas.ts')),
    mtime(join(root, 'core', 'config', 'config-schema.ts')),
    mtime(join(root, 'package-lock.json')),
  );
  if (built > newest) return dist;
  return buildRenderer(node);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${buildRenderer()}\n`);
}
