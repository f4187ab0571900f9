import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The agent tests (npm run test:agents): the real Claude Code and Codex CLI against Patchbay and the
// provider emulators. Kept out of `npm test` (the main config excludes test/agents). The files run one
// at a time: each agent process already keeps a core busy, and the machine may have two.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    name: 'agents',
    include: ['test/agents/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    // Only to stop a hung test: generous, as in the main vitest.config.ts (the machine is shared).
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
