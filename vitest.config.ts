import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Two projects: core's suite in Node exactly as before, and the dashboard's component tests in jsdom.
export default defineConfig({
  test: {
    // Only to stop a hung test: generous, because CI shares a loaded machine (at load average 12 a
    // CLI spawn took ~12 s and the test making ten of them 123 s). No test asserts elapsed time;
    // performance is measured in bench/ (bench/README.md).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // expect.poll waits for what should happen, as generously (the default is one second).
    expect: { poll: { timeout: 60_000 } },
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'core', include: ['test/**/*.test.ts'], exclude: ['test/agents/**', '**/node_modules/**'], environment: 'node', globalSetup: ['test/e2e/build-dashboard.global-setup.ts'] } },
      { extends: true, plugins: [react()], test: { name: 'renderer', include: ['renderer/src/**/*.test.{ts,tsx}'], environment: 'jsdom', setupFiles: ['renderer/src/test-support/setup.ts'] } },
    ],
  },
});
