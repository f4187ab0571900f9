import { describe, expect, it } from 'vitest';
import { parseKeyValueList, resolveTelemetrySettings } from '../../core/telemetry/telemetry-settings.ts';

describe('resolveTelemetrySettings: the config file over the standard OTEL_* variables', () => {
  it('is off by default: no endpoint anywhere, no export and no /metrics', () => {
    expect(resolveTelemetrySettings({}, {})).toMatchObject({ otlp: null, prometheus: null, serviceName: 'patchbay', captureContent: false, notices: [] });
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT turns export on: the signal paths added, headers and resource attributes decoded', () => {
    const settings = resolveTelemetrySettings({}, {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com/otel/',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic%20cGs6c2s=,x-tenant = team-a',
      OTEL_SERVICE_NAME: 'gateway',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,broken,=x',
    });
    expect(settings.otlp).toEqual({
      endpoint: 'https://otlp.example.com/otel',
      tracesUrl: 'https://otlp.example.com/otel/v1/traces',
      metricsUrl: 'https://otlp.example.com/otel/v1/metrics',
      protocol: 'http/protobuf',
      headers: { Authorization: 'Basic cGs6c2s=', 'x-tenant': 'team-a' },
      traces: true,
      metrics: true,
      exportDelayMs: 5000,
      metricsIntervalMs: 60000,
      timeoutMs: 10000,
      source: 'environment',
    });
    expect(settings.serviceName).toBe('gateway');
    expect(settings.resourceAttributes).toEqual({ 'deployment.environment.name': 'prod' });
  });

  it('a signal endpoint is used as is; OTEL_TRACES_EXPORTER=none and OTEL_METRICS_EXPORTER=none turn a signal off', () => {
    const settings = resolveTelemetrySettings({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces', OTEL_METRICS_EXPORTER: 'none' });
    expect(settings.otlp).toMatchObject({ tracesUrl: 'http://tempo:4318/v1/traces', traces: true, metrics: false });
  });

  it('the config file wins field by field (the dashboard writes it), and enabled: false turns export off whatever the environment says', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'from-env' };
    const settings = resolveTelemetrySettings({ otlp: { endpoint: 'http://file:4318', headers: { 'x-key': 'k' } }, serviceName: 'from-file', resourceAttributes: { team: 'ml' } }, env);
    expect(settings.otlp).toMatchObject({ endpoint: 'http://file:4318', tracesUrl: 'http://file:4318/v1/traces', protocol: 'http/json', headers: { 'x-key': 'k' }, source: 'config' });
    expect(settings).toMatchObject({ serviceName: 'from-file', resourceAttributes: { team: 'ml' } });
    expect(resolveTelemetrySettings({ otlp: { enabled: false } }, env).otlp).toBeNull();
    expect(resolveTelemetrySettings({}, { ...env, OTEL_SDK_DISABLED: 'true' }).otlp).toBeNull();
  });

  it('gRPC is not spoken: said once as a notice, and export stays off rather than sending to the wrong port', () => {
    const settings = resolveTelemetrySettings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(settings.otlp).toBeNull();
    expect(settings.notices).toEqual([expect.stringContaining('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported')]);
  });

  it('Prometheus only when the config file turns it on, on the API port unless it names its own', () => {
    expect(resolveTelemetrySettings({ prometheus: { enabled: true } }, {}).prometheus).toEqual({ host: '127.0.0.1', port: null });
    expect(resolveTelemetrySettings({ prometheus: { port: 9464 } }, {}).prometheus).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(resolveTelemetrySettings({ prometheus: { enabled: false, port: 9464 } }, {}).prometheus).toBeNull();
  });

  it('parseKeyValueList: W3C baggage-style lists, percent-decoded, malformed items skipped', () => {
    expect(parseKeyValueList('a=1, b = two%20words ,c=%E2%9C%93,bad,=nokey,d=%zz')).toEqual({ a: '1', b: 'two words', c: '✓', d: '%zz' });
    expect(parseKeyValueList(undefined)).toEqual({});
  });
});
