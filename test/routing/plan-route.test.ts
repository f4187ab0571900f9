import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';
import type { EndpointHealth } from '../../core/routing/health-tracker.ts';
import { planRoute, type PlanView } from '../../core/routing/plan-route.ts';
import { resolveRouteGroups } from '../../core/routing/resolve-route-groups.ts';
import type { RouteRequest } from '../../core/routing/route-plan.ts';
import { StickyMemory } from '../../core/routing/sticky-memory.ts';

const config = parseConfig({}, null);
const catalog = loadCatalog(config.providers);
const GROQ = 'groq/llama-3.3-70b-versatile';
const TOGETHER = 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo';
const fresh: EndpointHealth = { samples: 0, successRate: 1, latencyP50: null, firstByteP50: null, rateLimitedUntil: null } as unknown as EndpointHealth;

/** A view of a world where every provider has a key and is healthy, but for the endpoints named `down`. */
function view(options: { memory?: StickyMemory; down?: string[]; now?: number } = {}): PlanView {
  const memory = options.memory ?? new StickyMemory(600_000);
  const now = options.now ?? 1_000_000;
  return {
    defaultStrategy: 'round-robin',
    weights: config.weights,
    now,
    provider: (name) => config.providers.get(name),
    speaks: () => true,
    keyProblem: () => null,
    available: (id) => !(options.down ?? []).includes(id),
    health: () => fresh,
    turn: () => 0,
    sticky: (key) => memory.peek(key, now),
  };
}

function request(extra: Partial<RouteRequest> = {}): RouteRequest {
  return { operation: 'chat', model: 'llama-3.3-70b', needs: [], strategy: undefined, fallbackModels: [], stream: false, prompt: { bytes: 40, pieces: [], ids: 0 }, maxTokens: undefined, allowedModels: null, ...extra };
}

function plan(req: RouteRequest, v: PlanView, explain = false) {
  return planRoute(req, resolveRouteGroups(req, catalog, config, explain), v, { promptTokens: 10, contextTokens: explain ? { proven: 10, exact: true } : null, explain });
}

describe('planRoute: resolve, filter eligible, rank, stick', () => {
  it('without memory the strategy picks and takes its round-robin turn; the plan names the sticky key it will use', () => {
    const result = plan(request({ session: 's1' }), view());
    expect(result.candidates.map((e) => e.id)).toEqual([GROQ, TOGETHER]);
    expect(result.turns).toEqual(['llama-3.3-70b']);
    expect(result.sticky).toMatchObject({ via: 'session', kept: false, endpoint: null });
    expect(result.reason).toBe(`alias llama-3.3-70b; round-robin chose ${GROQ}`);
  });

  it('puts the session’s endpoint first and takes no turn; when it is ineligible the strategy picks and the plan says why', () => {
    const memory = new StickyMemory(600_000);
    const req = request({ session: 's1' });
    memory.remember(plan(req, view({ memory })).sticky!.key, TOGETHER, 999_000);
    const kept = plan(req, view({ memory }));
    expect(kept.candidates.map((e) => e.id)).toEqual([TOGETHER, GROQ]);
    expect(kept.turns).toEqual([]);
    expect(kept.reason).toBe(`alias llama-3.3-70b; sticky: ${TOGETHER} answered this session 1 time(s) in a row, last 1 s ago`);
    const moved = plan(req, view({ memory, down: [TOGETHER] }));
    expect(moved.candidates.map((e) => e.id)).toEqual([GROQ]);
    expect(moved.reason).toContain(`sticky endpoint ${TOGETHER} of this session left out (breaker_open), round-robin chose ${GROQ}`);
  });

  it.each([
    ['X-Patchbay-Sticky: off', request({ session: 's1', sticky: false })],
    ['a pinned provider', request({ session: 's1', model: TOGETHER })],
    ['no session and no prefix', request({ affinity: () => null })],
  ])('leaves the strategy alone for %s', (_name, req) => {
    const memory = new StickyMemory(600_000);
    memory.remember(`s\u0000s1\u0000chat\u0000${req.model}`, TOGETHER, 999_000);
    expect(plan(req, view({ memory })).sticky).toBeNull();
  });

  it('a prompt prefix names a session that has no id; the prefix is worked out only when it can matter', () => {
    let asked = 0;
    const affinity = () => {
      asked++;
      return 'prefix-hash';
    };
    expect(plan(request({ affinity }), view()).sticky).toMatchObject({ via: 'prefix' });
    plan(request({ affinity, model: GROQ }), view());
    expect(asked).toBe(1);
  });

  it('explaining keeps every reason and refuses nothing: score parts, and skips for capability, key and health', () => {
    const result = plan(request({ needs: [{ capability: 'images', param: 'messages' }], allowedModels: ['gpt-4o'] }), view({ down: [GROQ] }), true);
    expect(result.candidates).toEqual([]);
    expect(result.explained!.skipped.map((s) => [s.endpoint.id, s.code])).toEqual([
      [GROQ, 'capability_missing'],
      [TOGETHER, 'capability_missing'],
      [GROQ, 'not_allowed_for_key'],
      [TOGETHER, 'not_allowed_for_key'],
    ]);
    const ranked = plan(request({ strategy: 'balanced' }), view({ down: [GROQ] }), true);
    expect(ranked.explained!.candidates[0]).toMatchObject({ group: 'llama-3.3-70b', parts: { cost: { value: 1 } } });
    expect(ranked.explained!.skipped).toMatchObject([{ code: 'breaker_open' }]);
  });
});

describe('StickyMemory', () => {
  it('forgets an idle session, the least recently used first when full, and an endpoint that failed', () => {
    const memory = new StickyMemory(1000, 2);
    memory.remember('a', 'x', 0);
    memory.remember('b', 'y', 10);
    memory.remember('a', 'x', 20);
    expect(memory.peek('a', 30)).toMatchObject({ endpoint: 'x', turns: 2, since: 0 });
    memory.remember('c', 'z', 40);
    expect(memory.peek('b', 50)).toBeNull();
    expect(memory.size).toBe(2);
    expect(memory.peek('a', 1021)).toBeNull();
    memory.forget('c', 'other');
    expect(memory.peek('c', 50)).not.toBeNull();
    memory.forget('c', 'z');
    expect(memory.peek('c', 50)).toBeNull();
  });
});
