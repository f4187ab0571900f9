import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../core/cli/run-cli.ts';
import { KeychainSecretStore } from '../../core/secrets/keychain-secret-store.ts';
import type { UsageRecord } from '../../core/usage/usage-record.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const OPENAI_KEY = 'sk-test-parity-openai-0123456789';
const GROQ_KEY = 'gsk-test-parity-groq-0123456789';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the patchbay command as bin/patchbay.js does (same runCli), capturing what it prints. */
async function cli(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { out: (t) => (stdout += t), err: (t) => (stderr += t), env, stdin: async () => stdin });
  return { code, stdout, stderr };
}

/** What differs between two data dirs however the command ran: ids, secrets, times, latencies. */
function normalise(text: string): string {
  return text
    .replace(/pb-[A-Za-z0-9_-]{32}/g, '<secret>')
    .replace(/pb-[A-Za-z0-9_-]{4}\.\.\./g, '<hint>')
    .replace(/key_[0-9a-f]{12}/g, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
    .replace(/\(\d+ ms\)/g, '(<n> ms)')
    .replace(/patchbay-parity-[A-Za-z0-9]+/g, '<data dir>');
}

/** Usage rows that both data dirs get, written through the same store the server writes with. */
function seedUsage(pb: TestPatchbay, now: number): void {
  const base: UsageRecord = {
    ts: now,
    requestId: 'req_parity_1',
    keyId: null,
    endpoint: 'chat',
    requestedModel: 'gpt-4o',
    provider: 'openai',
    model: 'gpt-4o',
    strategy: 'balanced',
    status: 200,
    errorType: null,
    stream: false,
    promptTokens: 12,
    completionTokens: 30,
    totalTokens: 42,
    inputPrice: 2.5,
    outputPrice: 10,
    costUsd: 0.00033,
    latencyMs: 21.5,
    firstByteMs: null,
    attempts: [{ provider: 'openai', model: 'gpt-4o', status: 200, latency_ms: 21.5 } as never],
  };
  pb.patchbay.usage.record(base);
  // A model name a spreadsheet would run as a formula: the CSV export must neutralise it.
  pb.patchbay.usage.record({ ...base, ts: now + 1, requestId: 'req_parity_2', requestedModel: '=HYPERLINK("http://x","y")', provider: null, model: null, status: 404, errorType: 'invalid_request_error', promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0, attempts: [] });
  // A Claude Code session: its main agent and a subagent.
  pb.patchbay.usage.record({ ...base, ts: now + 2, requestId: 'req_parity_3', sessionId: 'cc-parity', sessionSource: 'claude-code', agentId: 'main', cacheReadTokens: 8, cacheSavedUsd: 0.00001 });
  pb.patchbay.usage.record({ ...base, ts: now + 3, requestId: 'req_parity_4', sessionId: 'cc-parity', sessionSource: 'claude-code', agentId: 'sub-1', parentAgentId: 'main' });
  pb.patchbay.usage.flush();
}

describe('every CLI command gives the same result with a running server and without', () => {
  const openai = new OpenAiEmulator({ apiKey: OPENAI_KEY });
  const groq = new GroqEmulator({ apiKey: GROQ_KEY });
  const suffix = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const dirs: string[] = [];
  let running: TestPatchbay;
  let config: unknown;
  const now = Date.now();

  const makeDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchbay-parity-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    return dir;
  };

  beforeAll(async () => {
    if (!new KeychainSecretStore({}, `patchbay-test-parity-${suffix}`).available) {
      throw new Error('These tests need a Secret Service (gnome-keyring in a D-Bus session): run them with "npm test", which starts one.');
    }
    config = { providers: { openai: { baseUrl: `${await openai.start()}/v1` }, groq: { baseUrl: `${await groq.start()}/openai/v1` } } };
  });
  afterAll(async () => {
    await running?.stop();
    await openai.close();
    await groq.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The whole command list, run in order against one data dir; later commands use the key created first. */
  async function runAll(dataDir: string, keychainService: string): Promise<Record<string, Outcome>> {
    const env = { OPENAI_API_KEY: OPENAI_KEY, PATCHBAY_KEYCHAIN_SERVICE: keychainService };
    const run = (args: string[], stdin?: string) => cli([...args, '--data-dir', dataDir], env, stdin);
    const out: Record<string, Outcome> = {};
    out.create = await run(['keys', 'create', '--name', 'editor', '--expires', '2027-01-31', '--models', 'gpt-4o-mini,llama-3.3-70b', '--rpm', '60', '--tpm', '100000', '--token-cap', '5000000', '--usd-cap', '20']);
    const id = /Created key (key_[0-9a-f]+)/.exec(out.create.stderr)?.[1] ?? 'key_none';
    out.createIsoExpiry = await run(['keys', 'create', '--name', 'ci', '--expires', '2027-06-30T12:00:00Z']);
    out.createBadExpiry = await run(['keys', 'create', '--name', 'bad', '--expires', 'someday']);
    out.createBadRpm = await run(['keys', 'create', '--name', 'bad', '--rpm=-4']);
    out.update = await run(['keys', 'update', id, '--rpm', 'none', '--usd-cap', '5', '--name', 'editor-2']);
    out.updateNone = await run(['keys', 'update', id, '--expires', 'none', '--models', 'none', '--tpm', 'none', '--token-cap', 'none', '--usd-cap', 'none', '--json']);
    out.updateExpires = await run(['keys', 'update', id, '--expires', '2028-02-29']);
    out.updateMissing = await run(['keys', 'update', 'key_000000000000', '--rpm', '5']);
    out.list = await run(['keys', 'list']);
    out.listJson = await run(['keys', 'list', '--json']);
    out.rotate = await run(['keys', 'rotate', id]);
    out.revoke = await run(['keys', 'revoke', id]);
    out.revokeMissing = await run(['keys', 'revoke', 'key_000000000000']);
    out.listAfter = await run(['keys', 'list', '--json']);

    out.providers = await run(['providers', 'list']);
    out.providersJson = await run(['providers', 'list', '--json']);
    out.setKey = await run(['providers', 'set-key', 'groq'], `${GROQ_KEY}\n`);
    out.setKeyEnvWins = await run(['providers', 'set-key', 'openai'], 'sk-test-parity-shadowed-0000\n');
    out.setKeyShort = await run(['providers', 'set-key', 'groq'], 'abc\n');
    out.setKeyUnknown = await run(['providers', 'set-key', 'nosuch'], `${GROQ_KEY}\n`);
    out.providersAfterSet = await run(['providers', 'list', '--json']);
    out.testGroq = await run(['providers', 'test', 'groq']);
    out.testOpenai = await run(['providers', 'test', 'openai']);
    out.deleteKey = await run(['providers', 'delete-key', 'groq']);
    out.deleteOpenai = await run(['providers', 'delete-key', 'openai']);
    out.testGroqAfter = await run(['providers', 'test', 'groq']);
    out.testUnknown = await run(['providers', 'test', 'nosuch']);

    out.routingShow = await run(['routing', 'show']);
    out.routingStrategy = await run(['routing', 'strategy', 'cost']);
    out.routingBadStrategy = await run(['routing', 'strategy', 'fastest']);
    out.routingFallback = await run(['routing', 'fallback', 'gpt-4o-mini', 'groq/llama-3.3-70b-versatile,llama-3.1-8b']);
    out.routingBadFallback = await run(['routing', 'fallback', 'gpt-4o-mini', 'no-such-model']);
    out.routingAlias = await run(['routing', 'alias', 'my-coder', 'openai/gpt-4o-mini,groq/llama-3.3-70b-versatile']);
    out.routingShowJson = await run(['routing', 'show', '--json']);
    out.routingExplain = await run(['routing', 'explain', 'my-coder', '--prompt-tokens', '1000', '--max-tokens', '100', '--strategy', 'cost']);
    out.routingExplainJson = await run(['routing', 'explain', 'llama-3.3-70b', '--needs', 'tools', '--json']);
    out.routingExplainUnknown = await run(['routing', 'explain', 'claude-sonet-4-5']);
    out.routingRule = await run(['routing', 'rule', 'cheap-compaction', '--class', 'compaction', '--model', 'llama-3.1-8b']);
    out.routingRuleFirst = await run(['routing', 'rule', 'explorers', '--class', 'subagent', '--agent-type', 'Explore,Plan', '--thinking', 'off', '--model', 'gpt-4o-mini', '--at', '1']);
    out.routingRuleBadClass = await run(['routing', 'rule', 'typo', '--class', 'compacting', '--model', 'gpt-4o-mini']);
    out.routingRuleBadModel = await run(['routing', 'rule', 'typo', '--class', 'auxiliary', '--model', 'no-such-model']);
    out.routingRuleNoModel = await run(['routing', 'rule', 'typo', '--class', 'auxiliary']);
    out.routingExplainRule = await run(['routing', 'explain', 'gpt-4o', '--class', 'compaction']);
    out.routingRuleShowJson = await run(['routing', 'show', '--json']);
    out.routingRuleNone = await run(['routing', 'rule', 'explorers', 'none']);
    out.routingAliasNone = await run(['routing', 'alias', 'my-coder', 'none']);
    out.routingFallbackNone = await run(['routing', 'fallback', 'gpt-4o-mini', 'none']);

    const month = new Date(now).toISOString().slice(0, 7);
    out.usage = await run(['usage']);
    out.usageMonth = await run(['usage', '--month', month]);
    out.usageEmptyMonth = await run(['usage', '--month', '2020-01']);
    for (const by of ['model', 'provider', 'key', 'day', 'session']) out[`usageBy-${by}`] = await run(['usage', '--by', by]);
    out.usageJson = await run(['usage', '--json', '--by', 'provider']);
    out.exportCsv = await run(['usage', '--export', 'csv']);
    out.exportJson = await run(['usage', '--export', 'json', '--month', month]);
    return out;
  }

  it('matches command for command, output for output', async () => {
    const serverDir = makeDir();
    const offlineDir = makeDir();
    // Both data dirs start alike: a first start created the default key, and the same usage rows.
    const keychainServer = `patchbay-test-parity-a-${suffix}`;
    const keychainOffline = `patchbay-test-parity-b-${suffix}`;
    const env = { OPENAI_API_KEY: OPENAI_KEY };
    const offlineStart = await startPatchbay({ dataDir: offlineDir, env, keychainService: keychainOffline });
    seedUsage(offlineStart, now);
    await offlineStart.stop();
    running = await startPatchbay({ dataDir: serverDir, env, keychainService: keychainServer });
    seedUsage(running, now);

    const viaServer = await runAll(serverDir, keychainServer);
    const offline = await runAll(offlineDir, keychainOffline);

    const differences = Object.keys(offline)
      .filter((name) => normalise(JSON.stringify(viaServer[name])) !== normalise(JSON.stringify(offline[name])))
      .map((name) => ({ name, server: viaServer[name], offline: offline[name] }));
    expect(differences).toEqual([]);
    // The commands did what they say (so a parity of two failures cannot pass).
    expect(viaServer.create).toMatchObject({ code: 0, stdout: expect.stringMatching(/^pb-\S{32}\n$/) });
    expect(JSON.parse(viaServer.listAfter.stdout)).toContainEqual(expect.objectContaining({ name: 'editor-2', status: 'revoked', expires_at: '2028-02-29T00:00:00.000Z', rpm_limit: null }));
    expect(JSON.parse(viaServer.listAfter.stdout)).toContainEqual(expect.objectContaining({ name: 'ci', expires_at: '2027-06-30T12:00:00.000Z' }));
    expect(viaServer.testGroq).toMatchObject({ code: 0, stdout: expect.stringContaining('OK: groq accepted the key') });
    expect(viaServer.exportCsv.stdout).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(viaServer.exportJson.stdout).toContain('"requested_model": "=HYPERLINK(\\"http://x\\",\\"y\\")"');
    expect(JSON.parse(viaServer.routingShowJson.stdout)).toMatchObject({
      strategy: 'cost',
      fallbacks: { 'gpt-4o-mini': ['groq/llama-3.3-70b-versatile', 'llama-3.1-8b'] },
      aliases: { 'my-coder': ['openai/gpt-4o-mini', 'groq/llama-3.3-70b-versatile'] },
    });
    expect(viaServer.routingBadFallback).toMatchObject({ code: 2, stderr: expect.stringContaining('routing.fallbacks.gpt-4o-mini[0]') });
    expect(viaServer.routingExplain.stdout).toMatch(/^custom alias my-coder; cost chose openai\/gpt-4o-mini/);
    expect(viaServer.routingExplain.stdout).toContain('groq/llama-3.3-70b-versatile: no_key:');
    expect(viaServer.routingExplainUnknown).toMatchObject({ code: 2, stderr: expect.stringContaining('Did you mean "claude-sonnet-4-5"') });
    expect(viaServer.routingFallbackNone.stdout).toContain('fallback chains: none');
    expect(viaServer.routingRuleFirst.stdout).toContain('rules (first match wins):\n  1. explorers: requestClass=subagent agentType=Explore|Plan thinking=false -> gpt-4o-mini\n  2. cheap-compaction: requestClass=compaction -> llama-3.1-8b');
    expect(viaServer.routingRuleBadClass).toMatchObject({ code: 2, stderr: expect.stringContaining("'rules[2].when.requestClass[0]': must be one of") });
    expect(viaServer.routingRuleBadModel).toMatchObject({ code: 2, stderr: expect.stringContaining('routing.rules[2].model') });
    expect(viaServer.routingRuleNoModel).toMatchObject({ code: 2, stderr: expect.stringContaining('--model') });
    expect(viaServer.routingExplainRule.stdout).toMatch(/^rule: cheap-compaction \(request class compaction\) -> llama-3\.1-8b\nrule "cheap-compaction" \(routing\.rules\[1\]\) matched/);
    expect(JSON.parse(viaServer.routingRuleShowJson.stdout).rules).toHaveLength(2);
    expect(viaServer.routingRuleNone.stdout).toContain('rules (first match wins):\n  1. cheap-compaction');

  });

  it('pauses and resumes a running Patchbay; without one, says there is nothing to pause', async () => {
    const env = { OPENAI_API_KEY: OPENAI_KEY };
    const offlineDir = makeDir();
    expect(await cli(['routing', 'pause', '--data-dir', offlineDir], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('Patchbay is not running, so there is nothing to pause') });
    const pb = await startPatchbay({ dataDir: makeDir(), config, env });
    try {
      expect(await cli(['routing', 'pause', '--data-dir', pb.dataDir], env)).toMatchObject({ code: 0 });
      const paused = await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (e: { status: number }) => e.status);
      expect(paused).toBe(503);
      expect((await cli(['routing', 'show', '--data-dir', pb.dataDir], env)).stdout).toContain('(PAUSED)');
      expect(await cli(['routing', 'resume', '--data-dir', pb.dataDir], env)).toMatchObject({ code: 0 });
      expect((await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices).toHaveLength(1);
    } finally {
      await pb.stop();
    }
  });
});
