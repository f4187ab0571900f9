import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import type { UsageRecord } from '../usage/usage-record.ts';
import { errorType, isCapRefusal, operationName, providerName } from './gen-ai-attributes.ts';

/** The GenAI conventions' advised buckets: token counts by powers of 4, durations from 10 ms doubling. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const SECONDS_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/**
 * The instruments one finished request is counted on: the GenAI client metrics (their names and
 * attributes as the conventions give them) and Patchbay's own counters by provider, model and key.
 * Recorded from the usage row, so a metric and the dashboard's numbers cannot disagree.
 */
export class RequestMetrics {
  private readonly tokens: Histogram;
  private readonly duration: Histogram;
  private readonly firstChunk: Histogram;
  private readonly requests: Counter;
  private readonly errors: Counter;
  private readonly fallbacks: Counter;
  private readonly cost: Counter;
  private readonly capRefusals: Counter;

  constructor(meter: Meter) {
    this.tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', description: 'Tokens used per request, by gen_ai.token.type (input, output)', advice: { explicitBucketBoundaries: TOKEN_BUCKETS } });
    this.duration = meter.createHistogram('gen_ai.client.operation.duration', { unit: 's', description: 'Duration of a request through Patchbay, to the end of its answer', advice: { explicitBucketBoundaries: SECONDS_BUCKETS } });
    this.firstChunk = meter.createHistogram('gen_ai.client.operation.time_to_first_chunk', { unit: 's', description: "Time from a streamed request's arrival to the upstream's first chunk", advice: { explicitBucketBoundaries: SECONDS_BUCKETS } });
    this.requests = meter.createCounter('patchbay.requests', { unit: '{request}', description: 'Requests answered, by provider, model, key and status' });
    this.errors = meter.createCounter('patchbay.errors', { unit: '{request}', description: 'Requests that ended in an error, by error.type' });
    this.fallbacks = meter.createCounter('patchbay.fallbacks', { unit: '{request}', description: 'Requests served by an endpoint tried after another failed' });
    this.cost = meter.createCounter('patchbay.cost', { unit: 'USD', description: 'Cost of the requests at list price (and the routing fee)' });
    this.capRefusals = meter.createCounter('patchbay.cap.refusals', { unit: '{request}', description: "Requests Patchbay refused for a key's rate limit or monthly cap" });
  }

  record(row: UsageRecord): void {
    const genAi: Attributes = { 'gen_ai.operation.name': operationName(row.endpoint) };
    if (row.provider) genAi['gen_ai.provider.name'] = providerName(row.provider);
    if (row.requestedModel) genAi['gen_ai.request.model'] = row.requestedModel;
    if (row.model) genAi['gen_ai.response.model'] = row.model;
    const failure = errorType(row);
    const timed = failure ? { ...genAi, 'error.type': failure } : genAi;
    this.duration.record(row.latencyMs / 1000, timed);
    if (row.stream && row.firstByteMs !== null && !failure) this.firstChunk.record(row.firstByteMs / 1000, genAi);
    if (row.provider && !failure) {
      this.tokens.record(row.promptTokens, { ...genAi, 'gen_ai.token.type': 'input' });
      this.tokens.record(row.completionTokens, { ...genAi, 'gen_ai.token.type': 'output' });
    }
    // Patchbay's own counters: one label set per provider, model and key (the key's id, never the key).
    const own: Attributes = { ...genAi, 'patchbay.key.id': row.keyId ?? 'none', 'http.response.status_code': row.status };
    this.requests.add(1, own);
    if (failure) this.errors.add(1, { ...own, 'error.type': failure });
    if (row.fallback) this.fallbacks.add(1, own);
    if (row.costUsd > 0) this.cost.add(row.costUsd, own);
    if (isCapRefusal(row)) this.capRefusals.add(1, { 'patchbay.key.id': row.keyId ?? 'none', 'error.type': failure ?? 'refused', ...(row.requestedModel ? { 'gen_ai.request.model': row.requestedModel } : {}) });
  }
}
