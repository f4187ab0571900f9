import type { PlannedCandidate, RouteRequest, Skip, StickyChoice } from './route-plan.ts';
import type { StickyEntry } from './sticky-memory.ts';

/**
 * The sticky memory's key for a request: its session (as the client named it) or, without one, the
 * hash of its stable prefix, with the operation and the model as asked (a session may use two
 * models), and always the Patchbay key that sent it. A session id or a prompt is no secret: with a
 * memory shared between keys, any key could move another key's session to another provider by
 * naming its id, and read from the route reason where another key's session or prompt went.
 */
export function stickyKey(request: RouteRequest): { key: string; via: StickyChoice['via'] } | null {
  const owner = request.keyId ?? '';
  if (request.session) return { key: `${sessionKeyPrefix(request.session, request.keyId)}${request.operation}\u0000${request.model}`, via: 'session' };
  const prefix = request.affinity?.() ?? null;
  return prefix ? { key: `p\u0000${owner}\u0000${prefix}\u0000${request.operation}\u0000${request.model}`, via: 'prefix' } : null;
}

/** The start of every sticky key of one session (of one Patchbay key), whatever its operation and model. */
export function sessionKeyPrefix(session: string, keyId: string | null | undefined): string {
  return `s\u0000${keyId ?? ''}\u0000${session}\u0000`;
}

/**
 * The stick step: when the session's endpoint is among the strategy's first group of eligible
 * candidates, it goes first; otherwise the strategy's order stands and the plan says why. Moves the
 * entry within `order` (the plan's own array) and returns what it decided.
 */
export function stickTo(order: PlannedCandidate[], key: { key: string; via: StickyChoice['via'] }, entry: StickyEntry | null, now: number, skipped: Skip[]): StickyChoice {
  const named = key.via === 'session' ? 'session' : 'prompt prefix';
  if (!entry) return { key: key.key, via: key.via, endpoint: null, kept: false, reason: `no endpoint yet for this ${named}` };
  let at = -1;
  for (let i = 0; i < order.length; i++) {
    if (order[i].endpoint.id === entry.endpoint) {
      at = i;
      break;
    }
  }
  if (at >= 0) {
    if (at > 0) order.unshift(...order.splice(at, 1));
    const idle = Math.round((now - entry.lastUsed) / 1000);
    return { key: key.key, via: key.via, endpoint: entry.endpoint, kept: true, reason: `sticky: ${entry.endpoint} answered this ${named} ${entry.turns} time(s) in a row, last ${idle} s ago` };
  }
  const skip = skipped.find((s) => s.endpoint.id === entry.endpoint);
  return {
    key: key.key,
    via: key.via,
    endpoint: entry.endpoint,
    kept: false,
    reason: `sticky endpoint ${entry.endpoint} of this ${named} ${skip ? `left out (${skip.code})` : 'not among the candidates'}`,
  };
}
