import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;
let gcFunction: GcFunction | null = null;

/**
 * V8's memory-reducing full collection on this thread: several mark-compacts until nothing more
 * is freed, then the young generation shrunk and the pooled pages unmapped (the `last-resort`
 * flavour of V8's gc extension; a plain `gc()` frees objects but keeps the pages). The extension
 * is taken from a context of its own, so no launch flag is needed and the server's global scope
 * stays without `gc` (the flag only adds it to contexts created afterwards). Both threads that go
 * idle use it: the request thread (idle-memory.ts) and the usage writer thread.
 */
export function collectAllGarbage(): void {
  if (gcFunction === null) {
    if (typeof globalThis.gc === 'function') gcFunction = globalThis.gc as GcFunction;
    else {
      setFlagsFromString('--expose-gc');
      gcFunction = runInNewContext('gc') as GcFunction;
    }
  }
  gcFunction({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
