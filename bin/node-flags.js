// V8 flags Patchbay's server runs with, in one place: the bin's shebang (which cannot import, so
// it repeats them; test/http/node-flags.test.ts checks the two agree), `npm start`, the Electron
// shell and the benchmark. Measured with bench/mem-probe.ts-style runs (chat at 16 and 64 in
// flight, embeddings, 256 in flight against a 50 ms upstream), side by side:
//
// --max-semi-space-size=16: the young generation is capped at 16 MB semi-spaces instead of
//   growing to V8's default (up to ~64 MB on this machine). 8 MB made requests that are in flight
//   for 50 ms survive two scavenges and get promoted; 16 MB lets most die young: at 256 in flight
//   CPU per request 412 -> 343 µs, at 64 in flight 284 -> 268 µs, for the same peak RSS. 32 MB
//   saved no more CPU and cost 30 MB.
//   V8 applies it to every isolate, over a Worker's own resourceLimits: the usage writer thread
//   would grow its young generation to 8 MB too, so UsageStore sets 1 MB while that thread starts
//   (core/usage/start-writer-thread.ts, withSemiSpace).
// --heap-growing-percent=50: after a full GC the old generation may grow by half of what is live
//   before the next one, not by V8's default factor (up to 4x on a large machine). The live heap
//   of a busy router is ~30 MB, yet at 256 in flight the default let the old generation reach
//   ~125 MB between collections: peak RSS ~285 MB, with this flag ~195-220 MB.
// Tried and left out: --initial-old-space-size=32 (start the old generation at its working size, so
//   a soak would not grow after its warm-up): the old space was still at its post-collection low
//   (17 MB) after the warm-up and grew as before (soak RSS +15.8 MB in 180 s against +13.2 without,
//   side by side); idle RSS at start 139.5 against 137.3 MB. No gain for a tray app.
// No flag is needed for the idle memory release (core/runtime/idle-memory.ts): it takes V8's gc
//   extension from a context of its own.
export const NODE_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=50'];

// Environment Patchbay's server starts with (the bin's shebang sets it too, before node starts:
// the C library reads it once, at start-up; the Electron shell cannot, as it is the process).
//
// MALLOC_ARENA_MAX=2: glibc's malloc gives each thread that allocates its own arena, up to 8 per
//   core; the usage writer thread, V8's helper threads and libuv's pool each leave one holding freed
//   memory. Two arenas: peak RSS 181-190 MB instead of 198-215 (four side-by-side runs of chat at
//   1, 16 and 64 in flight, bench/compare-builds.ts --env-b), CPU per request the same within the
//   noise both ways round (c16 -1 % and +16 %, c64 +4 % and -5 %). Ignored outside glibc (macOS).
export const NODE_ENV = { MALLOC_ARENA_MAX: '2' };
