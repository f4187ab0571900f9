import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OtlpReceiver } from '../helpers/otlp-receiver.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEY = 'gsk-test-otel-down';
const MODEL = 'groq/llama-3.3-70b-versatile';

describe('an OpenTelemetry collector that is down or hangs never slows or fails a request, and is reported once', () => {
  const groq = new GroqEmulator({ apiKey: KEY });
  let upstream = '';
  let pb: TestPatchbay | undefined;

  beforeAll(async () => {
    upstream = `${await groq.start()}/openai/v1`;
  });
  afterEach(async () => {
    await pb?.stop();
    pb = undefined;
  });
  afterAll(async () => {
    await groq.close();
  });

  const start = (endpoint: string, otlp: Record<string, unknown> = {}) =>
    startPatchbay({ config: { providers: { groq: { baseUrl: upstream } }, telemetry: { otlp: { endpoint, exportDelayMs: 20, metricsIntervalMs: 50, timeoutMs: 300, ...otlp } } }, env: { GROQ_API_KEY: KEY } });
  const ask = async () => {
    const started = performance.now();
    const { response } = await pb!.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    return { status: response.status, ms: performance.now() - started };
  };
  const exportFailures = () => pb!.logs.filter((line) => line.includes('OpenTelemetry export to'));

  it('a collector on a closed port: every request answers, the failure is logged once and shown in the status, and its recovery once', async () => {
    const closedPort = await freePort();
    const endpoint = `http://127.0.0.1:${closedPort}`;
    // Spans only: one batch at a time, so the failure and the recovery each happen once, in order.
    pb = await start(endpoint, { metrics: false });
    for (let round = 0; round < 5; round++) {
      expect((await ask()).status).toBe(200);
      await pb.patchbay.telemetry.flush().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(exportFailures()).toHaveLength(1);
    expect(exportFailures()[0]).toContain(`export to ${endpoint} failed`);
    const status = pb.patchbay.telemetry.status();
    expect(status.otlp).toMatchObject({ endpoint, protocol: 'http/protobuf', traces: true, metrics: false });
    expect(status.lastExport).toMatchObject({ lastError: expect.any(String), lastErrorAt: expect.any(Number), lastSuccessAt: null });

    // The collector comes up on that port: the next export works, said once, and the error clears.
    const receiver = new OtlpReceiver();
    await receiver.start(closedPort);
    try {
      expect((await ask()).status).toBe(200);
      // The request's span ends once its usage row is built, which may be just after the answer.
      for (let tries = 0; receiver.spans.length === 0 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await pb.patchbay.telemetry.flush();
      }
      expect(receiver.spans.length).toBeGreaterThan(0);
      expect(pb.logs.filter((line) => line.includes('works again')), pb.logs.join('\n')).toHaveLength(1);
      expect(pb.patchbay.telemetry.status().lastExport).toMatchObject({ lastError: null, lastSuccessAt: expect.any(Number) });
    } finally {
      await pb.stop();
      pb = undefined;
      await receiver.close();
    }
  });

  it('a collector that accepts and never answers: requests take no longer than with export off', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const hanging: Server = createServer(() => undefined);
    hanging.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const timings = async () => {
      await ask(); // warm-up: the first request loads the tokenizer and opens the upstream connection
      const times: number[] = [];
      for (let i = 0; i < 15; i++) {
        const { status, ms } = await ask();
        expect(status).toBe(200);
        times.push(ms);
      }
      return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
    };
    try {
      pb = await startPatchbay({ config: { providers: { groq: { baseUrl: upstream } } }, env: { GROQ_API_KEY: KEY } });
      const off = await timings();
      await pb.stop();
      pb = await start(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`);
      const on = await timings();
      // Medians on a shared machine: generous, but a request waiting on the collector would take seconds.
      expect(on).toBeLessThan(off + 50);
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      // Let the shutdown's last export fail at once instead of waiting out its timeout.
      for (const socket of sockets) socket.destroy();
      hanging.close();
      hanging.closeAllConnections();
    }
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
