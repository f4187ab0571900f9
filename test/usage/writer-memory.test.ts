import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE_ENV, NODE_FLAGS } from '../../bin/node-flags.js';

const MB = 1024 * 1024;

describe('the usage writer thread under the server\'s V8 flags', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its young generation small and no spent batches in its large-object space while it saves 100,000 rows, and saves every row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchbay-writer-heap-'));
    dirs.push(dir);
    const fixture = fileURLToPath(new URL('./fixtures/writer-heap.ts', import.meta.url));
    const run = spawnSync(process.execPath, [...NODE_FLAGS, fixture, dir, '100000'], { env: { ...process.env, ...NODE_ENV }, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { writerNewSpace: number; largeObjectsGrowth: number; laterNewSpace: number; saved: number };
    console.log(`writer thread's new space ${(result.writerNewSpace / MB).toFixed(1)} MB, large-object space grew ${(result.largeObjectsGrowth / MB).toFixed(1)} MB; a thread started later: ${(result.laterNewSpace / MB).toFixed(1)} MB`);
    expect(result.saved).toBe(100_000);
    // 1 MB semi-spaces: 2 MB committed at most (before: grown to 8 MB by the server's --max-semi-space-size=16).
    expect(result.writerNewSpace).toBeLessThanOrEqual(2 * MB);
    // Batches handed over as strings under 128 KB die young (before: one string per batch, 5 MB of them left here).
    expect(result.largeObjectsGrowth).toBeLessThan(1 * MB);
    // The flag is put back for threads started afterwards.
    expect(result.laterNewSpace).toBeGreaterThan(2 * MB);
  });
});
