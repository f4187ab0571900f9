import type { TelemetryConfig } from '../config/load-config.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Where and how spans and metrics go, once the config file and the OTEL_* environment are read together. */
export interface OtlpSettings {
  /** The collector's base URL (shown on the dashboard; never its headers). */
  endpoint: string;
  tracesUrl: string;
  metricsUrl: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  traces: boolean;
  metrics: boolean;
  exportDelayMs: number;
  metricsIntervalMs: number;
  timeoutMs: number;
  /** Which said where to export: the config file (and the dashboard, which writes it) or the environment. */
  source: 'config' | 'environment';
}

export interface TelemetrySettings {
  /** Null: no OTLP export (the default). */
  otlp: OtlpSettings | null;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  captureContent: boolean;
  /** Null: no /metrics (the default). `port` set: its own listener on `host` (default 127.0.0.1). */
  prometheus: { host: string; port: number | null } | null;
  /** What the environment asked for that Patchbay cannot do (said once at start). */
  notices: string[];
}

/** The OpenTelemetry SDK's own defaults (its specification's environment variables). */
export const DEFAULT_EXPORT_DELAY_MS = 5_000;
export const DEFAULT_METRICS_INTERVAL_MS = 60_000;
export const DEFAULT_EXPORT_TIMEOUT_MS = 10_000;

/**
 * The config file's `telemetry` section over the standard OTEL_* variables: a field the file sets
 * wins (the dashboard writes the file, so its switch must win over the environment); what it
 * leaves out comes from the environment. Export stays off unless an endpoint is named somewhere.
 */
export function resolveTelemetrySettings(config: TelemetryConfig, env: NodeJS.ProcessEnv): TelemetrySettings {
  const notices: string[] = [];
  const otlp = config.otlp ?? {};
  const envEndpoint = text(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const endpoint = otlp.endpoint ?? envEndpoint ?? text(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? text(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  const disabled = otlp.enabled === false || (otlp.enabled === undefined && text(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true');
  let protocol: OtlpProtocol = otlp.protocol ?? 'http/protobuf';
  const envProtocol = text(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? text(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  let unsupported = false;
  if (!otlp.protocol && envProtocol) {
    if (envProtocol === 'http/protobuf' || envProtocol === 'http/json') protocol = envProtocol;
    else {
      unsupported = true;
      notices.push(`OTEL_EXPORTER_OTLP_PROTOCOL=${envProtocol} is not supported: Patchbay exports over http/protobuf or http/json (a collector's port 4318). OTLP export is off.`);
    }
  }
  const base = endpoint?.replace(/\/+$/, '');
  const fromFile = otlp.endpoint !== undefined;
  const settings: TelemetrySettings = {
    otlp:
      base && !disabled && !unsupported
        ? {
            endpoint: base,
            // A signal's own variable is its full URL; the base endpoint gets the signal's path.
            tracesUrl: (!fromFile && text(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) || `${base}/v1/traces`,
            metricsUrl: (!fromFile && text(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)) || `${base}/v1/metrics`,
            protocol,
            headers: otlp.headers ?? parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS),
            traces: otlp.traces ?? text(env.OTEL_TRACES_EXPORTER) !== 'none',
            metrics: otlp.metrics ?? text(env.OTEL_METRICS_EXPORTER) !== 'none',
            exportDelayMs: otlp.exportDelayMs ?? positive(env.OTEL_BSP_SCHEDULE_DELAY) ?? DEFAULT_EXPORT_DELAY_MS,
            metricsIntervalMs: otlp.metricsIntervalMs ?? positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? DEFAULT_METRICS_INTERVAL_MS,
            timeoutMs: otlp.timeoutMs ?? positive(env.OTEL_EXPORTER_OTLP_TIMEOUT) ?? DEFAULT_EXPORT_TIMEOUT_MS,
            source: fromFile ? 'config' : 'environment',
          }
        : null,
    serviceName: config.serviceName ?? text(env.OTEL_SERVICE_NAME) ?? 'patchbay',
    resourceAttributes: { ...parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES), ...config.resourceAttributes },
    captureContent: config.captureContent ?? false,
    prometheus: config.prometheus && config.prometheus.enabled !== false ? { host: config.prometheus.host ?? '127.0.0.1', port: config.prometheus.port ?? null } : null,
    notices,
  };
  return settings;
}

/** `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage form OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES use). */
export function parseKeyValueList(value: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of value?.split(',') ?? []) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    if (!key) continue;
    pairs[key] = decode(item.slice(at + 1).trim());
  }
  return pairs;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function text(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function positive(value: string | undefined): number | undefined {
  const number = Number(text(value));
  return Number.isFinite(number) && number > 0 ? number : undefined;
}
