// The /v1 keys: GET/POST/PATCH /api/keys, `patchbay keys`.
import { InvalidRequestError, PatchbayError } from '../errors/patchbay-error.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { keyView, type KeyView } from './key-view.ts';
import type { ManagementContext } from './management-context.ts';
import type { KeySettingsInput } from './management-schemas.ts';

type KeysContext = Pick<ManagementContext, 'keys' | 'usage' | 'limiter'>;

export async function requireKey(ctx: Pick<ManagementContext, 'keys'>, id: string): Promise<ApiKeyRecord> {
  const record = await ctx.keys.get(id);
  if (!record) throw new PatchbayError(`No key has the id "${id}".`, { status: 404, type: 'invalid_request_error', code: 'key_not_found', param: 'id' });
  return record;
}

export async function listKeys(ctx: KeysContext): Promise<KeyView[]> {
  const now = Date.now();
  return Promise.all((await ctx.keys.list()).map((k) => keyView(ctx, k, now)));
}

export async function createKey(ctx: KeysContext, input: KeySettingsInput & { name: string }): Promise<{ key: KeyView; secret: string }> {
  const created = await ctx.keys.create({ name: input.name, ...toSettings(input) });
  return { key: await keyView(ctx, created.record), secret: created.secret };
}

export async function updateKey(ctx: KeysContext, id: string, input: KeySettingsInput): Promise<KeyView> {
  await requireKey(ctx, id);
  // The limiter reads a key's limits on every admission; its windows hold usage only, so they stay.
  const updated = (await ctx.keys.update(id, { name: input.name, ...toSettings(input) }))!;
  return keyView(ctx, updated);
}

export async function rotateKey(ctx: KeysContext, id: string): Promise<{ key: KeyView; secret: string }> {
  const record = await requireKey(ctx, id);
  if (record.revokedAt !== null) throw new InvalidRequestError(`The key "${id}" is revoked; create a new key instead of rotating it.`, 'id', 'key_revoked', 409);
  const rotated = (await ctx.keys.rotate(id))!;
  return { key: await keyView(ctx, rotated.record), secret: rotated.secret };
}

export async function revokeKey(ctx: KeysContext, id: string): Promise<KeyView> {
  await requireKey(ctx, id);
  await ctx.keys.revoke(id);
  return keyView(ctx, (await ctx.keys.get(id))!);
}

function toSettings(input: KeySettingsInput) {
  return {
    expiresAt: input.expires_at,
    allowedModels: input.allowed_models,
    monthlyTokenCap: input.monthly_token_cap,
    monthlyUsdCap: input.monthly_usd_cap,
    rpmLimit: input.rpm_limit,
    tpmLimit: input.tpm_limit,
  };
}
