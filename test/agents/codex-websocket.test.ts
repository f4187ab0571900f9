import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteCountingProxy } from '../helpers/byte-counting-proxy.ts';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { PROVIDERS, callsSince, codexEvents, expectInOrder, mark, providersReached, readmeCodexConfig, rowsSince, startAgentRig, type ProviderCase } from './agent-rig.ts';
import { CODEX_BIN, CODEX_VERSION, agentsInstalled, baseEnv, createWorkspace, run, type Workspace } from './run-agent.ts';

/**
 * The real Codex with `supports_websockets = true` (the README's config.toml, as written) through
 * Patchbay: one WebSocket per `codex exec`, a warm-up, then only the new items of each
 * model call after `previous_response_id`. A proxy in front of Patchbay sees what Codex sent.
 */

let rig: Rig;
let proxy: ProxiedRig;
interface ProxiedRig {
  url: string;
  counter: ByteCountingProxy;
}
beforeAll(async () => {
  rig = await startAgentRig();
  const counter = new ByteCountingProxy();
  const url = await counter.start({ host: '127.0.0.1', port: Number(new URL(rig.pb.patchbay.url).port) });
  proxy = { url, counter };
});
afterAll(async () => {
  await proxy?.counter.stop();
  await rig?.stop();
});

const word = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe.skipIf(!agentsInstalled).each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderCase]))(`Codex ${CODEX_VERSION} over the Responses WebSocket via %s`, (name, provider) => {
  let workspace: Workspace;
  let codexHome: string;
  beforeAll(() => {
    workspace = createWorkspace(`codex-ws-${name}`);
    codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome);
    const config = readmeCodexConfig(proxy.url, provider.chat);
    expect(config).toMatch(/^supports_websockets = true/m);
    writeFileSync(join(codexHome, 'config.toml'), config);
  });
  afterAll(() => workspace?.remove());
  const codex = (args: string[]) => run(CODEX_BIN, ['exec', ...args], { cwd: workspace.project, env: { ...baseEnv(workspace.home), CODEX_HOME: codexHome, PATCHBAY_KEY: rig.pb.key } });

  it('keeps a three-turn session with a tool call, each exec on one WebSocket, never a POST', async () => {
    const at = await mark(rig);
    const seen = proxy.counter.connections.length;
    const first = word('alpha');
    const one = codexEvents((await codex(['--json', '--skip-git-repo-check', `Remember the word ${first}.`])).stdout);
    expect(one.messages, JSON.stringify(one.failed)).toEqual([`Noted ${first}.`]);
    const two = codexEvents((await codex(['resume', '--json', '--skip-git-repo-check', one.thread!, `Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`])).stdout);
    expect(two.messages.at(-1), JSON.stringify(two.failed)).toBe(`The token is ${workspace.token}.`);
    const three = codexEvents((await codex(['resume', '--json', '--skip-git-repo-check', '--last', 'What was the first word?'])).stdout);
    expect(three.messages, JSON.stringify(three.failed)).toEqual([`The first word was ${first}.`]);

    const mine = proxy.counter.connections.slice(seen);
    expect(mine.filter((c) => c.head.startsWith('POST /v1/responses')).map((c) => c.head.split('\r\n')[0]), mine.map((c) => c.head.split('\r\n').slice(0, 1)).join(' | ')).toEqual([]);
    const sockets = mine.filter((c) => c.head.startsWith('GET /v1/responses') && /\r\nupgrade: websocket/i.test(c.head));
    expect(sockets.length).toBeGreaterThanOrEqual(3);

    // Four model calls (the tool call's two on one connection), each with the whole history upstream.
    expect(providersReached(rig, at)).toEqual({ [name]: 4 });
    const calls = callsSince(rig, at, provider.name);
    expectInOrder(calls[2].body, ['cat ', workspace.token]);
    expectInOrder(calls[3].body, [`Remember the word ${first}.`, `Noted ${first}.`, workspace.token, 'What was the first word?']);
    const rows = await rowsSince(rig, at);
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200, session_source: 'codex' });
  });
});
