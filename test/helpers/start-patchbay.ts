import OpenAI from 'openai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPatchbay } from '../../core/app/create-patchbay.ts';
import type { Patchbay, PatchbayOptions } from '../../core/app/patchbay.ts';
import { configureTokenCounter } from '../../core/tokens/count-tokens.ts';
import type { TokenCounterOptions } from '../../core/tokens/token-counter.ts';

/**
 * The token count's time budget in tests: a count that runs out of its budget is answered with the
 * byte bounds instead, which on a loaded machine would make a test's answer depend on its speed.
 * The budget itself is tested in test/tokens/token-counter.test.ts.
 */
export const PATIENT_COUNT_BUDGET_MS = 600_000;

export interface TestPatchbay {
  patchbay: Patchbay;
  /** The key Patchbay created on its first start. */
  key: string;
  /** The official openai client pointed at Patchbay, as a user would. */
  client: OpenAI;
  dataDir: string;
  /** What Patchbay logged. */
  logs: string[];
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Config file content (providers' baseUrl pointing at emulators, ...). */
  config?: unknown;
  /** Provider secrets as environment variables. */
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  keychainService?: string;
  shutdownGraceMs?: number;
  /** The dashboard's folder and sign-in clock (createPatchbay's `dashboard` option). */
  dashboard?: PatchbayOptions['dashboard'];
  /** A PostgreSQL database (test/helpers/start-postgres.ts) instead of SQLite in the data dir. */
  databaseUrl?: string;
  /** The routing health's clock (createPatchbay's `healthClock`): a test moves it past a breaker's cool-down. */
  healthClock?: () => number;
  /** The process's token counter (default: PATIENT_COUNT_BUDGET_MS; `{}` for the production settings, as the bench). */
  tokenCounter?: TokenCounterOptions;
  /** Quiet time before the idle memory release (createPatchbay's `idleCollectAfterMs`). */
  idleCollectAfterMs?: number;
  /**
   * Read the providers' own model lists at start, and wait for that first round (createPatchbay's
   * `discovery`). Off by default here: a test's emulator counts its requests and takes injected
   * faults in order, and a GET /models of Patchbay's own would take one. Tests of discovery, the
   * conformance rig and the agents turn it on.
   */
  discovery?: boolean;
}

/** Starts the real Patchbay (real HTTP on loopback, real SQLite in a temp dir) through the composition root. */
export async function startPatchbay(options: StartOptions = {}): Promise<TestPatchbay> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'patchbay-test-'));
  if (options.config !== undefined) writeFileSync(join(dataDir, 'config.json'), JSON.stringify(options.config, null, 2));
  const logs: string[] = [];
  // A keychain service of its own, so a test never reads or writes the developer's real entries.
  const keychainService = options.keychainService ?? `patchbay-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await configureTokenCounter(options.tokenCounter ?? { budgetMs: PATIENT_COUNT_BUDGET_MS });
  const patchbay = await createPatchbay({ dataDir, host: '127.0.0.1', port: 0, env: options.env ?? {}, keychainService, shutdownGraceMs: options.shutdownGraceMs, dashboard: options.dashboard, databaseUrl: options.databaseUrl, healthClock: options.healthClock, idleCollectAfterMs: options.idleCollectAfterMs, discovery: options.discovery ?? false, log: (m) => logs.push(m) });
  await patchbay.models.firstDiscovery;
  const key = patchbay.firstKey ?? (await patchbay.stores.keys.create({ name: 'test' })).secret;
  const client = new OpenAI({ baseURL: `${patchbay.url}/v1`, apiKey: key, maxRetries: 0 });
  return {
    patchbay,
    key,
    client,
    dataDir,
    logs,
    async stop() {
      await patchbay.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Rows of the usage table, oldest first, after flushing the queue. */
export function usageRows(patchbay: Patchbay): Record<string, unknown>[] {
  patchbay.usage.flush();
  return (patchbay.db.prepare('SELECT * FROM usage ORDER BY id').all() as Record<string, unknown>[]).map((row) => ({
    ...row,
    attempts: JSON.parse(row.attempts as string),
  }));
}
