import type { ApiKeyRecord } from '../keys/key-store.ts';
import { openData } from './open-data.ts';
import { parseCommand, UsageError, type CliIo } from './run-cli.ts';

export function runKeysCommand(args: string[], io: CliIo): number {
  const [action, ...rest] = args;
  const { values, positionals } = parseCommand(rest, {
    name: { type: 'string' },
    expires: { type: 'string' },
    models: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (!['create', 'list', 'revoke'].includes(action ?? '')) {
    throw new UsageError('Usage: patchbay keys create --name NAME | keys list [--json] | keys revoke ID');
  }
  const { db, keys } = openData(values, io.env);
  try {
    if (action === 'create') {
      if (!values.name) throw new UsageError('keys create needs --name NAME (a label to recognise the key by).');
      const created = keys.create({
        name: values.name as string,
        expiresAt: values.expires ? parseDate(values.expires as string) : null,
        allowedModels: values.models ? (values.models as string).split(',').map((m) => m.trim()).filter(Boolean) : null,
      });
      io.out(`${created.secret}\n`);
      io.err(`Created key ${created.record.id} ("${created.record.name}"). The key is shown only once.\n`);
      return 0;
    }
    if (action === 'list') {
      const list = keys.list();
      if (values.json) io.out(`${JSON.stringify(list, null, 2)}\n`);
      else io.out(formatKeys(list));
      return 0;
    }
    const id = positionals[0];
    if (!id) throw new UsageError('keys revoke needs the key id (see "patchbay keys list").');
    if (!keys.revoke(id)) throw new UsageError(`No key has the id "${id}" (see "patchbay keys list").`);
    io.out(`Revoked ${id}. Requests with it now get 401.\n`);
    return 0;
  } finally {
    db.close();
  }
}

function parseDate(value: string): number {
  const time = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(time)) throw new UsageError(`--expires must be a date such as 2027-01-31, not "${value}".`);
  return time;
}

function formatKeys(list: ApiKeyRecord[]): string {
  if (list.length === 0) return 'No keys yet. Create one with "patchbay keys create --name NAME".\n';
  const now = Date.now();
  const rows = list.map((k) => [
    k.id,
    k.name,
    `${k.hint}...`,
    k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt <= now ? 'expired' : 'active',
    new Date(k.createdAt).toISOString().slice(0, 10),
    k.expiresAt ? new Date(k.expiresAt).toISOString().slice(0, 10) : '-',
    k.allowedModels?.join(',') ?? 'all',
  ]);
  return formatTable(['ID', 'NAME', 'KEY', 'STATUS', 'CREATED', 'EXPIRES', 'MODELS'], rows);
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
