import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HostGuard } from '../../core/http/host-guard.ts';
import { ReplicaLifecycle } from '../../core/http/replica-lifecycle.ts';
import { createResponsesWebSocket } from '../../core/http/v1/serve-responses-websocket.ts';
import { KeyStore } from '../../core/keys/key-store.ts';
import { SqliteKeyBackend } from '../../core/keys/sqlite-key-backend.ts';
import { openDatabase, type PatchbayDatabase } from '../../core/sqlite/open-database.ts';
import { CodexWebSocket } from '../helpers/codex-websocket.ts';

/**
 * A connection's lifetime, as OpenAI bounds its own (60 minutes, here a few milliseconds): the next
 * response.create is told `websocket_connection_limit_reached` and the connection closes, which
 * Codex answers by opening a new one. The WebSocket server alone, with a real key store: the turn is
 * refused before it would reach the rest of Patchbay.
 */

let dir: string;
let db: PatchbayDatabase;
let server: Server;
let url: string;
let key: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'patchbay-ws-lifetime-'));
  db = openDatabase(dir);
  const store = new KeyStore(db);
  key = store.create({ name: 'ws' }).secret;
  const sockets = createResponsesWebSocket({ keys: new SqliteKeyBackend(store), hostGuard: new HostGuard({ allowedHosts: [], allowedOrigins: [], listenHost: '127.0.0.1' }), lifecycle: new ReplicaLifecycle({ drainMs: 0 }), log: () => undefined, connectionLifetimeMs: 20 });
  server = createServer((_req, res) => res.end());
  server.on('upgrade', sockets.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('past its lifetime a connection answers the next turn with websocket_connection_limit_reached and closes', async () => {
  const ws = await CodexWebSocket.open(url, key);
  const closed = new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
  await new Promise((resolve) => setTimeout(resolve, 40));
  const turn = await ws.turn({ model: 'm', input: [] });
  expect(turn.error).toMatchObject({ type: 'error', status: 400, error: { code: 'websocket_connection_limit_reached' } });
  expect(await closed).toBe(1000);
});

it('refuses a web page of another origin, as every request is (a browser may open a WebSocket anywhere)', async () => {
  await expect(CodexWebSocket.open(url, key, { origin: 'https://evil.example' })).rejects.toMatchObject({ status: 403 });
});
