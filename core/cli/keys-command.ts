import type { z } from 'zod';
import type { keySettingsSchema } from '../management/management-schemas.ts';
import type { KeyView } from '../management/key-view.ts';
import { commandHelp } from './command-help.ts';
import { unlimitedKeyAdvice } from '../keys/first-key.ts';
import { connectManagement } from './connect-management.ts';
import { formatTable } from './format-table.ts';
import { formatUsd } from './format-usd.ts';
import { parseCommand } from './parse-command.ts';
import { UsageError } from './usage-error.ts';
import type { CliIo } from './cli-io.ts';

const SETTING_FLAGS = {
  name: { type: 'string' },
  expires: { type: 'string' },
  models: { type: 'string' },
  'token-cap': { type: 'string' },
  'usd-cap': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/**
 * Turns flags into the management API's key settings as it takes them on the wire (the expiry as
 * typed; the API parses it); "none" clears a setting.
 */
function settingsFrom(values: Record<string, string | boolean | undefined>): z.input<typeof keySettingsSchema> {
  const out: Record<string, unknown> = {};
  const number = (flag: string, field: string) => {
    const value = values[flag] as string | undefined;
    if (value === undefined) return;
    if (value === 'none') out[field] = null;
    else if (Number.isFinite(Number(value))) out[field] = Number(value);
    else throw new UsageError(`--${flag} must be a number or "none", not "${value}".`);
  };
  if (values.name !== undefined) out.name = values.name;
  if (values.expires !== undefined) out.expires_at = values.expires === 'none' ? null : values.expires;
  if (values.models !== undefined) out.allowed_models = values.models === 'none' ? null : String(values.models).split(',').map((m) => m.trim()).filter(Boolean);
  number('token-cap', 'monthly_token_cap');
  number('usd-cap', 'monthly_usd_cap');
  number('rpm', 'rpm_limit');
  number('tpm', 'tpm_limit');
  return out as z.input<typeof keySettingsSchema>;
}

export async function runKeysCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (!['create', 'update', 'list', 'rotate', 'revoke'].includes(action ?? '')) throw new UsageError(commandHelp('keys')!.trimEnd());
  const { values, positionals } = parseCommand(rest, SETTING_FLAGS);
  const id = positionals[0];
  if (['update', 'rotate', 'revoke'].includes(action!) && !id) throw new UsageError(`keys ${action} needs the key id (see "patchbay keys list").`);
  if (action === 'create' && !values.name) throw new UsageError('keys create needs --name NAME (a label to recognise the key by).');
  const connection = await connectManagement(values, io.env, io.err);
  const { management } = connection;
  try {
    switch (action) {
      case 'create': {
        const created = await management.createKey({ ...settingsFrom(values), name: String(values.name) });
        io.out(`${created.secret}\n`);
        io.err(`Created key ${created.key.id} ("${created.key.name}"). The key is shown only once.\n`);
        const k = created.key;
        const advice = unlimitedKeyAdvice(k.id, { expiresAt: k.expires_at === null ? null : 0, allowedModels: k.allowed_models, monthlyTokenCap: k.monthly_token_cap, monthlyUsdCap: k.monthly_usd_cap, rpmLimit: k.rpm_limit, tpmLimit: k.tpm_limit });
        if (advice) io.err(`${advice}\n`);
        return 0;
      }
      case 'update': {
        const updated = await management.updateKey(id, settingsFrom(values));
        io.out(values.json ? `${JSON.stringify(updated, null, 2)}\n` : formatKeys([updated]));
        return 0;
      }
      case 'list': {
        const list = await management.listKeys();
        io.out(values.json ? `${JSON.stringify(list, null, 2)}\n` : formatKeys(list));
        return 0;
      }
      case 'rotate': {
        const rotated = await management.rotateKey(id);
        io.out(`${rotated.secret}\n`);
        io.err(`Rotated ${id}: the old key stopped working; this new one is shown only once.\n`);
        return 0;
      }
      default: {
        await management.revokeKey(id);
        io.out(`Revoked ${id}. Requests with it now get 401.\n`);
        return 0;
      }
    }
  } finally {
    await connection.close();
  }
}

function formatKeys(list: KeyView[]): string {
  if (list.length === 0) return 'No keys yet. Create one with "patchbay keys create --name NAME".\n';
  const limit = (value: number | null, unit = '') => (value === null ? '-' : `${value}${unit}`);
  const rows = list.map((k) => [
    k.id,
    k.name,
    k.hint,
    k.status,
    k.created_at.slice(0, 10),
    k.expires_at?.slice(0, 10) ?? '-',
    k.allowed_models?.join(',') ?? 'all',
    limit(k.rpm_limit, '/min'),
    limit(k.tpm_limit, '/min'),
    limit(k.monthly_token_cap),
    k.monthly_usd_cap === null ? '-' : `$${k.monthly_usd_cap}`,
    `${k.month_usage.tokens} / ${formatUsd(k.month_usage.usd)}`,
  ]);
  return formatTable(['ID', 'NAME', 'KEY', 'STATUS', 'CREATED', 'EXPIRES', 'MODELS', 'RPM', 'TPM', 'TOKEN CAP', 'USD CAP', 'THIS MONTH'], rows);
}
