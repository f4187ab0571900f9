import type { BudgetState } from './budget-ledger.ts';
import type { KeyCapEvent } from './key-cap-event.ts';
import type { ApiKeyRecord } from './key-store.ts';

/** One bit per cap and threshold, so each is announced once per key and month. */
export const CAP_NOTICE = { tokens80: 1, tokens100: 2, usd80: 4, usd100: 8 } as const;

/** The thresholds `used` has reached (at start-up: what was crossed before, not to be announced again). */
export function reachedNotices(key: ApiKeyRecord, usedTokens: number, usedUsd: number): number {
  let bits = 0;
  const tokenCap = key.monthlyTokenCap;
  const usdCap = key.monthlyUsdCap;
  if (tokenCap !== null && usedTokens >= 0.8 * tokenCap) bits |= CAP_NOTICE.tokens80;
  if (tokenCap !== null && usedTokens >= tokenCap) bits |= CAP_NOTICE.tokens100;
  if (usdCap !== null && usedUsd >= 0.8 * usdCap) bits |= CAP_NOTICE.usd80;
  if (usdCap !== null && usedUsd >= usdCap) bits |= CAP_NOTICE.usd100;
  return bits;
}

/** The cap thresholds (80 %, 100 %) already announced, per key and month (CAP_NOTICE bits). */
export class CapNotices {
  private readonly notices = new Map<string, { monthStart: number; bits: number }>();

  /** At a key's first sight in a month: the thresholds its usage had crossed already are not news. */
  init(key: ApiKeyRecord, state: BudgetState): void {
    const known = this.notices.get(key.id);
    if (known && known.monthStart === state.monthStart) return;
    this.notices.set(key.id, { monthStart: state.monthStart, bits: reachedNotices(key, state.usedTokens, state.usedUsd) });
  }

  /** Announces to `onCap` the thresholds in `reached` not yet announced this month, 80 % before 100 %. */
  announce(key: ApiKeyRecord, state: BudgetState, reached: number, onCap: ((event: KeyCapEvent) => void) | null): void {
    this.init(key, state);
    const notices = this.notices.get(key.id)!;
    const fresh = reached & ~notices.bits;
    if (fresh === 0) return;
    notices.bits |= fresh;
    if (onCap === null) return;
    const month = new Date(state.monthStart).toISOString().slice(0, 7);
    const all: [number, KeyCapEvent['cap'], KeyCapEvent['threshold'], number, number | null][] = [
      [CAP_NOTICE.tokens80, 'tokens', 80, state.usedTokens, key.monthlyTokenCap],
      [CAP_NOTICE.tokens100, 'tokens', 100, state.usedTokens, key.monthlyTokenCap],
      [CAP_NOTICE.usd80, 'usd', 80, state.usedUsd, key.monthlyUsdCap],
      [CAP_NOTICE.usd100, 'usd', 100, state.usedUsd, key.monthlyUsdCap],
    ];
    for (const [bit, cap, threshold, used, limit] of all) {
      if (fresh & bit && limit !== null) onCap({ key_id: key.id, key_name: key.name, cap, threshold, used, limit, month });
    }
  }
}
