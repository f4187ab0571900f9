import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HEALTH_POLLED_WITHIN_MS, ReplicaLifecycle } from '../../core/http/replica-lifecycle.ts';
import { serveLifecycle } from '../../core/http/serve-lifecycle.ts';

describe('ReplicaLifecycle: ready, draining, stopping', () => {
  it('a replica a proxy polls drains for the configured time; /health turns 503 at once', () => {
    let now = 1_000_000;
    const lifecycle = new ReplicaLifecycle({ drainMs: 4000, now: () => now });
    expect(lifecycle.health()).toEqual({ status: 200, body: { status: 'ready' } });
    expect([lifecycle.keepsConnectionsOpen, lifecycle.refusesNewRequests]).toEqual([true, false]);
    now += 1000;
    expect(lifecycle.beginDrain()).toBe(4000);
    expect(lifecycle.health()).toEqual({ status: 503, body: { status: 'draining' } });
    // Draining still serves requests, but closes each connection after its answer.
    expect([lifecycle.keepsConnectionsOpen, lifecycle.refusesNewRequests]).toEqual([false, false]);
    // A second signal: no more waiting.
    expect(lifecycle.beginDrain()).toBe(0);
    lifecycle.beginStop();
    expect(lifecycle.health()).toEqual({ status: 503, body: { status: 'stopping' } });
    expect([lifecycle.keepsConnectionsOpen, lifecycle.refusesNewRequests]).toEqual([false, true]);
  });

  it('a replica nobody polls (a laptop) stops at once, as before', () => {
    let now = 0;
    const never = new ReplicaLifecycle({ drainMs: 4000, now: () => now });
    expect(never.beginDrain()).toBe(0);
    const long = new ReplicaLifecycle({ drainMs: 4000, now: () => now });
    long.health();
    now += HEALTH_POLLED_WITHIN_MS + 1;
    expect(long.beginDrain()).toBe(0);
  });
});

describe('serveLifecycle at the door of a real HTTP server', () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const start = async (lifecycle: ReplicaLifecycle) => {
    server = createServer((req, res) => {
      if (serveLifecycle(req, res, lifecycle, () => undefined)) return;
      res.end('served');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const get = (port: number, path: string, method = 'GET') =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('GET /health says ready, then draining (other requests still served, with Connection: close), then stopping (503, retry)', async () => {
    const lifecycle = new ReplicaLifecycle({ drainMs: 1000 });
    const port = await start(lifecycle);
    expect(await get(port, '/health')).toMatchObject({ status: 200, body: '{"status":"ready"}', headers: { 'cache-control': 'no-store' } });
    expect(await get(port, '/health', 'HEAD')).toMatchObject({ status: 200, body: '' });
    expect(await get(port, '/v1/models')).toMatchObject({ status: 200, body: 'served' });
    lifecycle.beginDrain();
    expect(await get(port, '/health?probe=1')).toMatchObject({ status: 503, body: '{"status":"draining"}' });
    expect(await get(port, '/v1/models')).toMatchObject({ status: 200, body: 'served', headers: { connection: 'close' } });
    lifecycle.beginStop();
    const refused = await get(port, '/v1/chat/completions', 'POST');
    expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '1', connection: 'close' } });
    expect(JSON.parse(refused.body).error).toMatchObject({ type: 'server_error', code: 'replica_stopping' });
    // Anthropic's clients get Anthropic's error shape.
    const anthropic = JSON.parse((await get(port, '/v1/messages', 'POST')).body);
    expect(anthropic).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
    expect(await get(port, '/health')).toMatchObject({ status: 503, body: '{"status":"stopping"}' });
  });
});
