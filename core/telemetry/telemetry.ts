import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TelemetryConfig } from '../config/load-config.ts';
import { tokensEqual } from '../secrets/admin-token.ts';
import type { ExportStatus } from './export-health.ts';
import { GEN_AI_SEMCONV_VERSION } from './gen-ai-attributes.ts';
import { loadMetricsToken, metricsTokenPath } from './metrics-token.ts';
import type { RequestTelemetry } from './request-observation.ts';
import type { RunningOtel } from './start-otel.ts';
import { resolveTelemetrySettings, type TelemetrySettings } from './telemetry-settings.ts';

/** What the dashboard shows: whether export is on, where to, and how it went last. Never the export headers. */
export interface TelemetryStatus {
  otlp: { endpoint: string; protocol: string; traces: boolean; metrics: boolean; source: 'config' | 'environment' } | null;
  lastExport: ExportStatus | null;
  prometheus: { url: string; tokenFile: string } | null;
  captureContent: boolean;
  semconvVersion: string;
}

export interface TelemetryOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  version: string;
  log: (message: string) => void;
}

/**
 * Patchbay's telemetry, created once by the composition root. `active` is what a /v1 request
 * checks: null while export and /metrics are off, so the hot path pays one property read and the
 * SDK is not even loaded. `apply` starts, restarts or stops it when the config changes.
 */
export class Telemetry {
  active: RequestTelemetry | null = null;
  private running: RunningOtel | null = null;
  private settings: TelemetrySettings | null = null;
  private listener: Server | null = null;
  private metricsToken: string | null = null;
  private baseUrl = '';
  private applying: Promise<void> = Promise.resolve();

  private readonly options: TelemetryOptions;

  constructor(options: TelemetryOptions) {
    this.options = options;
  }

  /** The main server's URL, for the status's /metrics address. */
  setBaseUrl(url: string): void {
    this.baseUrl = url;
  }

  apply(config: TelemetryConfig): Promise<void> {
    // One change at a time, in order; a change that failed (its port taken) does not block the next.
    this.applying = this.applying.catch(() => undefined).then(() => this.restart(config));
    return this.applying;
  }

  private async restart(config: TelemetryConfig): Promise<void> {
    const settings = resolveTelemetrySettings(config, this.options.env);
    for (const notice of settings.notices) if (!this.settings?.notices.includes(notice)) this.options.log(notice);
    // Another replica's routing change applies the whole config: telemetry restarts only when its own part changed.
    if (this.settings && JSON.stringify(settings) === JSON.stringify(this.settings)) return;
    await this.stop();
    this.settings = settings;
    if (!settings.otlp && !settings.prometheus) return;
    try {
      const { startOtel } = await import('./start-otel.ts');
      this.running = await startOtel(settings, this.options.version, this.options.log);
      if (settings.prometheus) {
        this.metricsToken = loadMetricsToken(this.options.dataDir);
        if (settings.prometheus.port !== null) this.listener = await listen(settings.prometheus.host, settings.prometheus.port, (req, res) => this.answerMetrics(req, res));
      }
    } catch (error) {
      // Not running (its port taken, say): the same settings applied again try again.
      this.settings = null;
      await this.stop();
      throw error;
    }
    this.active = this.running.requests;
    if (settings.otlp) this.options.log(`OpenTelemetry export on: ${settings.otlp.protocol} to ${settings.otlp.endpoint} (${[settings.otlp.traces && 'traces', settings.otlp.metrics && 'metrics'].filter(Boolean).join(' and ') || 'nothing'}).`);
  }

  /**
   * GET /metrics on the main server. Served only when Prometheus is on without its own address;
   * returns false otherwise (the path is then answered as any unknown one).
   */
  serveMetrics(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.running?.prometheus || this.listener) return false;
    this.answerMetrics(req, res);
    return true;
  }

  private answerMetrics(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    const prometheus = this.running?.prometheus;
    if (path !== '/metrics' || !prometheus) return plain(res, 404, 'Not found: Patchbay serves GET /metrics here.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Use GET /metrics.\n', { allow: 'GET, HEAD' });
    const presented = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    if (!presented || !this.metricsToken || !tokensEqual(presented, this.metricsToken)) {
      return plain(res, 401, `/metrics needs its token: Authorization: Bearer <the contents of ${metricsTokenPath(this.options.dataDir)}>.\n`, { 'www-authenticate': 'Bearer realm="patchbay-metrics"' });
    }
    prometheus.getMetricsRequestHandler(req, res);
  }

  status(): TelemetryStatus {
    const settings = this.settings;
    const otlp = settings?.otlp;
    const own = this.listener?.address() as AddressInfo | null | undefined;
    return {
      otlp: otlp ? { endpoint: otlp.endpoint, protocol: otlp.protocol, traces: otlp.traces, metrics: otlp.metrics, source: otlp.source } : null,
      lastExport: this.running?.health?.snapshot() ?? null,
      prometheus: settings?.prometheus ? { url: own ? `http://${hostForUrl(own.address)}:${own.port}/metrics` : `${this.baseUrl}/metrics`, tokenFile: metricsTokenPath(this.options.dataDir) } : null,
      captureContent: settings?.captureContent ?? false,
      semconvVersion: GEN_AI_SEMCONV_VERSION,
    };
  }

  /** Sends what is queued now (tests, and a clean shutdown). */
  async flush(): Promise<void> {
    await this.applying.catch(() => undefined);
    await this.running?.flush();
  }

  async close(): Promise<void> {
    await this.applying.catch(() => undefined);
    await this.stop();
  }

  private async stop(): Promise<void> {
    this.active = null;
    const running = this.running;
    const listener = this.listener;
    this.running = null;
    this.listener = null;
    if (listener) await new Promise<void>((resolve) => listener.close(() => resolve()));
    // A collector that does not answer holds the shutdown at most one export timeout.
    await running?.shutdown().catch(() => undefined);
  }
}

function listen(host: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function hostForUrl(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
