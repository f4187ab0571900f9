import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ExportHealth } from './export-health.ts';
import { SCHEMA_URL } from './gen-ai-attributes.ts';
import { createRequestTelemetry } from './otel-request-observation.ts';
import { RequestMetrics } from './request-metrics.ts';
import type { RequestTelemetry } from './request-observation.ts';
import type { OtlpSettings, TelemetrySettings } from './telemetry-settings.ts';

/** Spans held while the collector is slow or away: past this the SDK drops new ones (bounded memory). */
export const MAX_QUEUED_SPANS = 2048;
const MAX_EXPORT_BATCH = 512;

/** The running OpenTelemetry SDK: what requests are observed with, and how to stop it. */
export interface RunningOtel {
  requests: RequestTelemetry;
  health: ExportHealth | null;
  prometheus: PrometheusExporter | null;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Starts the SDK for the settings: a tracer provider with a bounded batch processor and an OTLP
 * exporter (protobuf or JSON over HTTP), a meter provider read by an OTLP exporter and/or the
 * Prometheus endpoint. Nothing is registered globally: two Patchbays in one process (the tests)
 * keep apart, and a host application's own SDK is left alone. Loaded only when telemetry is on.
 */
export async function startOtel(settings: TelemetrySettings, version: string, log: (message: string) => void): Promise<RunningOtel> {
  const otlp = settings.otlp;
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version, ...settings.resourceAttributes });
  const health = otlp ? new ExportHealth(otlp.endpoint, log) : null;
  let tracerProvider: TracerProvider | null = null;
  if (otlp?.traces) {
    const exporter = health!.watch('traces', await traceExporter(otlp));
    tracerProvider = new TracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUED_SPANS, maxExportBatchSize: MAX_EXPORT_BATCH, scheduledDelayMillis: otlp.exportDelayMs, exportTimeoutMillis: otlp.timeoutMs })],
    });
  }
  const readers: IMetricReader[] = [];
  if (otlp?.metrics) {
    const exporter = health!.watch('metrics', await metricExporter(otlp));
    readers.push(new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: otlp.metricsIntervalMs, exportTimeoutMillis: Math.min(otlp.timeoutMs, otlp.metricsIntervalMs) }));
  }
  const prometheus = settings.prometheus ? new (await import('@opentelemetry/exporter-prometheus')).PrometheusExporter({ preventServerStart: true }) : null;
  if (prometheus) readers.push(prometheus);
  const meterProvider = readers.length ? new MeterProvider({ resource, readers }) : null;
  const scope = { version, schemaUrl: SCHEMA_URL };
  const requests = createRequestTelemetry({
    tracer: tracerProvider?.getTracer('patchbay', version, { schemaUrl: SCHEMA_URL }) ?? null,
    propagator: new W3CTraceContextPropagator(),
    metrics: meterProvider ? new RequestMetrics(meterProvider.getMeter('patchbay', scope.version, { schemaUrl: scope.schemaUrl })) : null,
    captureContent: settings.captureContent,
  });
  return {
    requests,
    health,
    prometheus,
    async flush() {
      await Promise.all([tracerProvider?.forceFlush(), meterProvider?.forceFlush()]);
    },
    async shutdown() {
      // What is queued is sent now (bounded by the export timeout), then the providers stop.
      await Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
    },
  };
}

async function traceExporter(otlp: OtlpSettings) {
  const config = { url: otlp.tracesUrl, headers: otlp.headers, timeoutMillis: otlp.timeoutMs };
  if (otlp.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config);
}

async function metricExporter(otlp: OtlpSettings) {
  const config = { url: otlp.metricsUrl, headers: otlp.headers, timeoutMillis: otlp.timeoutMs };
  if (otlp.protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(config);
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(config);
}
