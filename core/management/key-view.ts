import { startOfMonth } from '../keys/budget-ledger.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import type { ManagementContext } from './management-context.ts';

export interface KeyView {
  id: string;
  name: string;
  hint: string;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  allowed_models: string[] | null;
  monthly_token_cap: number | null;
  monthly_usd_cap: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  /** Used this month, and what requests in flight have reserved against the caps. */
  month_usage: { tokens: number; usd: number; reserved_tokens: number; reserved_usd: number };
  /** The last request a monthly cap refused, while the cap still refuses it (null otherwise). */
  cap_refusal: { cap: 'tokens' | 'usd'; at: string; needed: number } | null;
}

type KeyViewContext = Pick<ManagementContext, 'usage' | 'limiter'>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A key as the API shows it: never its secret, with this month's usage against its caps. */
export async function keyView(ctx: KeyViewContext, record: ApiKeyRecord, now = Date.now()): Promise<KeyView> {
  return {
    id: record.id,
    name: record.name,
    hint: `${record.hint}...`,
    status: record.revokedAt !== null ? 'revoked' : record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active',
    created_at: iso(record.createdAt)!,
    expires_at: iso(record.expiresAt),
    revoked_at: iso(record.revokedAt),
    allowed_models: record.allowedModels,
    monthly_token_cap: record.monthlyTokenCap,
    monthly_usd_cap: record.monthlyUsdCap,
    rpm_limit: record.rpmLimit,
    tpm_limit: record.tpmLimit,
    ...(await capView(ctx, record, now)),
  };
}

/** Month usage with the limiter's reservations and refusal (the CLI's offline mode has no limiter: none). */
async function capView(ctx: KeyViewContext, record: ApiKeyRecord, now: number): Promise<Pick<KeyView, 'month_usage' | 'cap_refusal'>> {
  const used = await ctx.usage.keyTotalsSince(record.id, startOfMonth(now));
  const state = ctx.limiter?.capState(record) ?? { reservedTokens: 0, reservedUsd: 0, refusal: null };
  return {
    month_usage: { ...used, reserved_tokens: state.reservedTokens, reserved_usd: state.reservedUsd },
    cap_refusal: state.refusal ? { cap: state.refusal.cap, at: new Date(state.refusal.at).toISOString(), needed: state.refusal.needed } : null,
  };
}
