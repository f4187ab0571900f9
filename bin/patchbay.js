#!/usr/bin/env -S node --max-semi-space-size=16 --heap-growing-percent=50
// The shebang's flags are NODE_FLAGS in bin/node-flags.js (why each is there is written there).
// Thin launcher: the CLI is TypeScript run by Node's built-in type stripping (Node 22.18+).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(`Patchbay needs Node 22.18 or newer (this is ${process.version}). Run "npm start" from the project folder, which fetches a suitable Node.`);
  process.exit(1);
}
const { runCli } = await import('../core/cli/run-cli.ts');
process.exitCode = await runCli(process.argv.slice(2));
