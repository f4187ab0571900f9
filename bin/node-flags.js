// V8 flags Patchbay's server runs with, in one place: the bin's shebang (which cannot import, so
// it repeats them; test/http/node-flags.test.ts checks the two agree), `npm start`, the Electron
// shell and the benchmark.
//
// --max-semi-space-size=8: the young generation otherwise grows to ~128 MB under load.
// --heap-growing-percent=50: after each full GC V8 lets the old generation grow by half of what
//   is live before the next one, not by its default factor of up to 4x on a large machine. A
//   router's live heap is ~30 MB, but at 256 requests in flight the default let the old
//   generation reach ~125 MB between collections (RSS ~285 MB); with this, ~195 MB, for ~2-3 %
//   more CPU at 16-64 requests in flight (bench/README.md has the measurements).
export const NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
