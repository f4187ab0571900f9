import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, defaultTextMapSetter, trace, type Attributes, type Context, type Span, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import type { Endpoint } from '../catalog/load-catalog.ts';
import type { AttemptReport } from '../errors/provider-error.ts';
import { redactSecrets } from '../errors/redact-secrets.ts';
import type { RoutePlan } from '../routing/route-plan.ts';
import type { AttemptWatch } from '../routing/route-trace.ts';
import type { UsageRecord } from '../usage/usage-record.ts';
import { errorType, operationName, patchbayAttributes, providerName, requestAttributes, usageAttributes } from './gen-ai-attributes.ts';
import type { RequestMetrics } from './request-metrics.ts';
import type { DecodedRequest, RequestObservation, RequestTelemetry } from './request-observation.ts';

/** What an observation records with: a tracer (null: metrics only), the metrics (null: traces only). */
export interface ObservationParts {
  tracer: Tracer | null;
  propagator: TextMapPropagator;
  metrics: RequestMetrics | null;
  captureContent: boolean;
}

/** Content on a span is cut here: a span is a record, not an archive, and a collector's limits are lower than a prompt can be. */
const MAX_CONTENT_CHARS = 64 * 1024;

export function createRequestTelemetry(parts: ObservationParts): RequestTelemetry {
  return { observe: (headers, endpoint) => new OtelRequestObservation(parts, headers, endpoint) };
}

class OtelRequestObservation implements RequestObservation {
  readonly capturesContent: boolean;
  private readonly span: Span | null;
  private readonly context: Context;
  private readonly operation: string;
  private sticky: boolean | null = null;
  /** The answering attempt's span: open until the answer (a stream) has ended. */
  private answering: { span: Span; report: AttemptReport } | null = null;
  /** Attempts started and not yet ended (an internal error ends the request with them open). */
  private readonly open = new Set<Span>();
  private readonly parts: ObservationParts;

  constructor(parts: ObservationParts, headers: IncomingHttpHeaders, endpoint: string) {
    this.parts = parts;
    this.capturesContent = parts.captureContent;
    this.operation = operationName(endpoint);
    if (!parts.tracer) {
      this.span = null;
      this.context = ROOT_CONTEXT;
      return;
    }
    // The client's traceparent (an agent's own trace), when it sent one: Patchbay's spans join it.
    const parent = headers.traceparent ? parts.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter) : ROOT_CONTEXT;
    this.span = parts.tracer.startSpan(this.operation, { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': this.operation } }, parent);
    this.context = trace.setSpan(parent, this.span);
  }

  decoded(request: DecodedRequest): void {
    const span = this.span;
    if (!span) return;
    span.updateName(`${this.operation} ${request.model}`);
    span.setAttributes({ 'gen_ai.request.model': request.model, 'gen_ai.request.stream': request.stream, ...requestAttributes(request.body, request.maxTokens) });
  }

  planned(plan: Pick<RoutePlan, 'sticky'>): void {
    this.sticky = plan.sticky ? plan.sticky.kept : null;
  }

  startAttempt(endpoint: Endpoint, baseUrl: string): AttemptWatch {
    const tracer = this.parts.tracer;
    if (!tracer) return { headers: undefined, end: () => undefined };
    const attributes: Attributes = {
      'gen_ai.operation.name': this.operation,
      'gen_ai.provider.name': providerName(endpoint.provider),
      'gen_ai.request.model': endpoint.model,
      'patchbay.provider': endpoint.provider,
      ...serverAttributes(baseUrl),
    };
    const span = tracer.startSpan(`${this.operation} ${endpoint.model}`, { kind: SpanKind.CLIENT, attributes }, this.context);
    this.open.add(span);
    const headers: Record<string, string> = {};
    this.parts.propagator.inject(trace.setSpan(this.context, span), headers, defaultTextMapSetter);
    return {
      headers,
      end: (report) => {
        span.setAttributes({ 'patchbay.attempt.status': report.status, 'patchbay.attempt.latency_ms': report.latency_ms });
        if (report.status === 200) {
          // Answered: its usage is known only once the answer (a stream) has ended.
          this.answering = { span, report };
          return;
        }
        span.setAttribute('error.type', report.error_type ?? String(report.status));
        span.setStatus({ code: SpanStatusCode.ERROR, message: report.message ?? undefined });
        this.open.delete(span);
        span.end();
      },
    };
  }

  finish(row: UsageRecord, content: { request: string; response: string } | null): void {
    try {
      this.parts.metrics?.record(row);
    } finally {
      this.endSpans(row, content);
    }
  }

  private endSpans(row: UsageRecord, content: { request: string; response: string } | null): void {
    const span = this.span;
    if (!span) return;
    const failure = errorType(row);
    const usage = row.provider ? usageAttributes(row) : {};
    if (this.answering) {
      const { span: attempt } = this.answering;
      attempt.setAttributes({ 'gen_ai.response.model': row.model ?? '', ...usage });
      if (row.stream && row.firstByteMs !== null) attempt.setAttribute('gen_ai.response.time_to_first_chunk', row.firstByteMs / 1000);
      // A failure after the first chunk (a stream cut mid-answer) is the answering attempt's too.
      if (failure) {
        attempt.setAttribute('error.type', failure);
        attempt.setStatus({ code: SpanStatusCode.ERROR });
      }
      this.open.delete(attempt);
      attempt.end();
    }
    for (const open of this.open) open.end();
    this.open.clear();
    if (row.requestedModel) span.updateName(`${this.operation} ${row.requestedModel}`);
    const attributes: Attributes = { ...usage, ...patchbayAttributes(row, this.sticky) };
    if (row.requestedModel) attributes['gen_ai.request.model'] = row.requestedModel;
    if (row.provider) attributes['gen_ai.provider.name'] = providerName(row.provider);
    if (row.model) attributes['gen_ai.response.model'] = row.model;
    if (row.sessionId) attributes['gen_ai.conversation.id'] = row.sessionId;
    if (row.stream && row.firstByteMs !== null) attributes['gen_ai.response.time_to_first_chunk'] = row.firstByteMs / 1000;
    if (content && this.capturesContent) {
      attributes['gen_ai.input.messages'] = capped(redactSecrets(content.request));
      if (content.response) attributes['gen_ai.output.messages'] = capped(redactSecrets(content.response));
    }
    span.setAttributes(attributes);
    if (failure) {
      span.setAttribute('error.type', failure);
      // The message the client was answered with: Patchbay's own words, upstream text already redacted.
      span.setStatus({ code: SpanStatusCode.ERROR, message: row.errorMessage ?? undefined });
    }
    span.end();
  }
}

const servers = new Map<string, Attributes>();

/** server.address and server.port of the upstream an attempt went to (parsed once per base URL: a handful). */
function serverAttributes(baseUrl: string): Attributes {
  let attributes = servers.get(baseUrl);
  if (!attributes) {
    try {
      const url = new URL(baseUrl);
      attributes = { 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
    } catch {
      attributes = {};
    }
    if (servers.size < 1000) servers.set(baseUrl, attributes);
  }
  return attributes;
}

function capped(text: string): string {
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…[cut]` : text;
}
