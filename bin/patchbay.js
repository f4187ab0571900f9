#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=16 --heap-growing-percent=50
// The shebang's environment and flags are NODE_ENV and NODE_FLAGS in bin/node-flags.js (why each is there is written there).
// Thin launcher for the CLI in core/cli.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(`Patchbay needs Node 22.18 or newer (this is ${process.version}). Run "npm start" from the project folder, which fetches a suitable Node.`);
  process.exit(1);
}
// PATCHBAY_DIST: core/ compiled to JavaScript (scripts/build-core.js; `npm start` sets it after
// building). Without it, the TypeScript sources run through Node's type stripping.
const { pathToFileURL } = await import('node:url');
const entry = process.env.PATCHBAY_DIST ? pathToFileURL(`${process.env.PATCHBAY_DIST}/core/cli/run-cli.js`) : new URL('../core/cli/run-cli.ts', import.meta.url);
const { runCli } = await import(entry.href);
process.exitCode = await runCli(process.argv.slice(2));
