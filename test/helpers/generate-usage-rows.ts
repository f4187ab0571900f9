import type { UsageRecord } from '../../core/usage/usage-record.ts';

/** A small deterministic PRNG (mulberry32), so generated databases are the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const GENERATED_PROVIDERS = ['openai', 'anthropic', 'google', 'groq', 'together', 'ollama'];

export interface GenerateOptions {
  rows: number;
  from: number;
  to: number;
  keys: string[];
  seed?: number;
}

/**
 * Usage rows as a busy month of traffic would leave them: 6 providers with 5 models each, the
 * given keys (and some requests without one), mostly 200s with 429s, 5xx, 400s and 503s (no
 * provider), log-normal latencies per provider, many rows sharing a timestamp, ids not quite in
 * ts order (a row is written when its request ends). Oldest first.
 */
export function* generateUsageRows(options: GenerateOptions): Generator<UsageRecord> {
  const next = random(options.seed ?? 1);
  // Sessions draw from their own sequence, so the other columns are what they were before sessions existed.
  const nextSession = random((options.seed ?? 1) + 7919);
  const active: GeneratedSession[] = [];
  let sessionCount = 0;
  const span = options.to - options.from;
  const step = span / options.rows;
  let previousTs = -1;
  for (let i = 0; i < options.rows; i++) {
    let p = Math.floor(next() * GENERATED_PROVIDERS.length);
    let provider = GENERATED_PROVIDERS[p];
    let model = `${provider}-model-${Math.floor(next() * 5)}`;
    const session = nextSession() < SESSION_SHARE ? sessionFor(active, nextSession, options.keys.length, () => `gen-session-${(sessionCount++).toString(36)}`) : null;
    if (session) {
      p = session.provider;
      provider = GENERATED_PROVIDERS[p];
      model = `${provider}-model-${session.model}`;
    }
    const roll = next();
    const status = roll < 0.9 ? 200 : roll < 0.93 ? 429 : roll < 0.96 ? 500 : roll < 0.97 ? 502 : roll < 0.99 ? 400 : 503;
    const routed = status !== 503;
    // A third of the rows share the previous row's ts (bursts), which the request log must page
    // through correctly; the others overlap their neighbours, so ids are not in ts order.
    let ts = previousTs >= 0 && next() < 0.33 ? previousTs : Math.floor(options.from + (i + next() * 3 - 1) * step);
    ts = Math.min(Math.max(ts, options.from), options.to - 1);
    previousTs = ts;
    const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    const latency = Math.round(Math.exp(Math.log(200 + p * 150) + 0.7 * normal) * 100) / 100;
    const ok = status < 400;
    const prompt = ok ? Math.floor(next() * 3000) + 5 : 0;
    const completion = ok ? Math.floor(next() * 800) : 0;
    const drawnKey = Math.floor(next() * (options.keys.length + 1));
    const keyIndex = session ? session.key : drawnKey;
    const agent = session ? agentFor(session, nextSession) : null;
    const cacheRead = session && ok ? Math.floor(prompt * 0.8) : 0;
    yield {
      ts,
      requestId: `req_gen_${i.toString(36)}`,
      keyId: keyIndex < options.keys.length ? options.keys[keyIndex] : null,
      endpoint: 'chat',
      requestedModel: model,
      provider: routed ? provider : null,
      model: routed ? model : null,
      strategy: 'balanced',
      status,
      errorType: ok ? null : status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error',
      stream: next() < 0.4,
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      inputPrice: routed ? 1 + p : null,
      outputPrice: routed ? 4 + p : null,
      costUsd: ((1 + p) * prompt + (4 + p) * completion) / 1_000_000,
      latencyMs: latency,
      firstByteMs: null,
      attempts: routed ? [{ provider, model, status, error_type: null, message: null, latency_ms: latency }] : [],
      routeReason: routed ? `alias ${model}; balanced chose ${provider}/${model}` : null,
      sessionId: session?.id ?? null,
      sessionSource: session?.source ?? null,
      agentId: agent?.id ?? null,
      parentAgentId: agent?.parent ?? null,
      cacheReadTokens: cacheRead,
      cacheSavedUsd: (cacheRead * (1 + p) * 0.5) / 1_000_000,
      // What Claude Code says a request is for: a subagent's, else now and then a compaction or a background call (no draw, so the rows stay as they were).
      requestClass: session?.source === 'claude-code' ? (agent?.parent ? 'subagent' : i % 11 === 0 ? 'compaction' : i % 7 === 0 ? 'auxiliary' : 'main') : null,
    };
  }
}

/** Rows that belong to an agent session (Claude Code, Codex, X-Patchbay-Session). */
const SESSION_SHARE = 0.7;
/** Sessions running at once: a session's rows interleave with the others'. */
const ACTIVE_SESSIONS = 50;
const SOURCES = ['claude-code', 'claude-code', 'codex', 'patchbay'];

interface GeneratedSession {
  id: string;
  source: string;
  provider: number;
  model: number;
  key: number;
  left: number;
  /** Subagents (Claude Code only), each started by the main agent. */
  subagents: number;
}

/** One of the running sessions, replaced by a new one once it has sent its requests (20 to 400). */
function sessionFor(active: GeneratedSession[], next: () => number, keys: number, newId: () => string): GeneratedSession {
  const slot = Math.floor(next() * ACTIVE_SESSIONS);
  let session = active[slot];
  if (!session || session.left <= 0) {
    const source = SOURCES[Math.floor(next() * SOURCES.length)];
    session = {
      id: newId(),
      source,
      provider: Math.floor(next() * GENERATED_PROVIDERS.length),
      model: Math.floor(next() * 5),
      key: Math.floor(next() * (keys + 1)),
      left: 20 + Math.floor(next() * 380),
      subagents: source === 'claude-code' ? Math.floor(next() * 4) : 0,
    };
    active[slot] = session;
  }
  session.left--;
  return session;
}

function agentFor(session: GeneratedSession, next: () => number): { id: string; parent: string | null } | null {
  if (session.source !== 'claude-code') return null;
  const pick = Math.floor(next() * (session.subagents + 2));
  return pick < 2 || session.subagents === 0 ? { id: `${session.id}-main`, parent: null } : { id: `${session.id}-sub-${pick - 1}`, parent: `${session.id}-main` };
}
