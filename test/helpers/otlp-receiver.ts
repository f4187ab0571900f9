import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

/**
 * An OTLP/HTTP receiver for tests, like a collector's otlp receiver on port 4318: it takes
 * POST /v1/traces and /v1/metrics in protobuf or JSON and keeps what it decoded. Protobuf is decoded
 * with the OpenTelemetry project's own generated definitions (the protobufjs module that
 * @opentelemetry/otlp-transformer shipped, installed as the dev dependency otlp-protobuf-definitions),
 * not a parser of ours: a field Patchbay encodes wrongly fails here as it would in a collector.
 */
const proto = createRequire(import.meta.url)('otlp-protobuf-definitions/build/src/generated/root.js').opentelemetry.proto;
const TraceRequest = proto.collector.trace.v1.ExportTraceServiceRequest;
const MetricsRequest = proto.collector.metrics.v1.ExportMetricsServiceRequest;
const TO_OBJECT = { longs: Number, bytes: String, defaults: false, arrays: true };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** SpanKind as OTLP numbers it: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: { name: string; version?: string };
  startTimeUnixNano: number;
  endTimeUnixNano: number;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  points: { attributes: Record<string, unknown>; value: number }[];
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly metrics: ReceivedMetric[] = [];
  /** Content types of what arrived, in order ('application/x-protobuf' or 'application/json'). */
  readonly contentTypes: string[] = [];
  private server: Server | null = null;

  /** Listens on loopback (on `port` when given: a collector coming up where one was expected). */
  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      void read(req).then((body) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0];
        this.contentTypes.push(type);
        try {
          if (req.url === '/v1/traces') this.spans.push(...decodeTraces(body, type));
          else if (req.url === '/v1/metrics') this.metrics.push(...decodeMetrics(body, type));
          else return void res.writeHead(404).end();
        } catch (error) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
          return;
        }
        // An empty ExportServiceResponse is a success in either encoding.
        res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  clear(): void {
    this.spans.length = 0;
    this.metrics.length = 0;
    this.contentTypes.length = 0;
  }

  /** The spans of one trace: its root first, then its children in start order. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId).sort((a, b) => (a.parentSpanId === null ? -1 : b.parentSpanId === null ? 1 : a.startTimeUnixNano - b.startTimeUnixNano));
  }
}

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function decodeTraces(body: Buffer, type: string): ReceivedSpan[] {
  const json = type === 'application/json';
  const request: Json = json ? JSON.parse(body.toString('utf8')) : TraceRequest.toObject(TraceRequest.decode(body), TO_OBJECT);
  const id = (value: string | undefined) => (!value ? null : json ? value : Buffer.from(value, 'base64').toString('hex'));
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: id(span.traceId)!,
          spanId: id(span.spanId)!,
          parentSpanId: id(span.parentSpanId) || null,
          name: span.name,
          kind: Number(span.kind),
          attributes: attributes(span.attributes),
          status: { code: Number(span.status?.code ?? 0), ...(span.status?.message ? { message: span.status.message } : {}) },
          resource,
          scope: { name: scopeSpans.scope?.name, version: scopeSpans.scope?.version },
          startTimeUnixNano: Number(span.startTimeUnixNano),
          endTimeUnixNano: Number(span.endTimeUnixNano),
        });
      }
    }
  }
  return spans;
}

function decodeMetrics(body: Buffer, type: string): ReceivedMetric[] {
  const request: Json = type === 'application/json' ? JSON.parse(body.toString('utf8')) : MetricsRequest.toObject(MetricsRequest.decode(body), TO_OBJECT);
  const metrics: ReceivedMetric[] = [];
  for (const resourceMetrics of request.resourceMetrics ?? []) {
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) {
        const data = metric.sum ?? metric.histogram ?? metric.gauge;
        metrics.push({
          name: metric.name,
          unit: metric.unit,
          // A sum's value, or a histogram's count (how many were recorded).
          points: (data?.dataPoints ?? []).map((point: Json) => ({ attributes: attributes(point.attributes), value: Number(point.asDouble ?? point.asInt ?? point.count ?? 0) })),
        });
      }
    }
  }
  return metrics;
}

function attributes(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

function anyValue(value: Json | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}
