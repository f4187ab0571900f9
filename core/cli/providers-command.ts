import { validateBody } from '../http/validate-body.ts';
import { providerKeyLabelSchema, providerSecretSchema } from '../management/management-schemas.ts';
import { commandHelp } from './command-help.ts';
import { connectManagement } from './connect-management.ts';
import { formatTable } from './format-table.ts';
import { parseCommand } from './parse-command.ts';
import { UsageError } from './usage-error.ts';
import type { CliIo } from './cli-io.ts';

export async function runProvidersCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (!['list', 'set-key', 'delete-key', 'test'].includes(action ?? '')) throw new UsageError(commandHelp('providers')!.trimEnd());
  const { values, positionals } = parseCommand(rest, { json: { type: 'boolean' }, label: { type: 'string' } });
  const label = values.label as string | undefined;
  if (label !== undefined && action !== 'set-key' && action !== 'delete-key') throw new UsageError(`--label goes with set-key and delete-key, not ${action}.`);
  if (label !== undefined) validateBody(providerKeyLabelSchema, { label });
  const name = positionals[0];
  if (action !== 'list' && !name) throw new UsageError(`providers ${action} needs the provider name (see "patchbay providers list").`);
  // Read the secret before connecting, so nothing else is waiting on the terminal.
  const secret = action === 'set-key' ? (await (io.stdin ?? readStdin)()).trim() : '';
  if (action === 'set-key') validateBody(providerSecretSchema, { secret });
  const connection = await connectManagement(values, io.env, io.err);
  try {
    const { management } = connection;
    if (action === 'list') {
      const providers = await management.listProviders();
      if (values.json) io.out(`${JSON.stringify(providers, null, 2)}\n`);
      else io.out(formatTable(['NAME', 'PROTOCOL', 'ENABLED', 'KEY', 'LABELS', 'BASE URL'], providers.map((p) => [p.name, p.protocol, p.enabled ? 'yes' : 'no', keyColumn(p), labelsColumn(p), p.base_url])));
      for (const p of providers) if (p.notice) io.out(`${p.notice}\n`);
      for (const p of providers) for (const line of keyNotes(p)) io.out(`${line}\n`);
      return 0;
    }
    if (action === 'set-key') {
      const view = await management.setProviderSecret(name, secret, label);
      const which = label && label !== 'default' ? `${name} key "${label}"` : `${name} key`;
      io.out(`Stored the ${which} in the OS keychain${view.key_source === 'env' && (label ?? 'default') === 'default' ? ' (the environment variable still takes precedence while it is set)' : ''}.\n`);
      return 0;
    }
    if (action === 'delete-key') {
      await management.deleteProviderSecret(name, label);
      io.out(`Deleted the ${label && label !== 'default' ? `${name} key "${label}"` : `${name} key`} from the OS keychain.\n`);
      return 0;
    }
    const result = await management.testProvider(name);
    io.out(`${result.ok ? 'OK' : 'FAILED'}: ${result.message} (${result.latency_ms} ms)\n`);
    return result.ok ? 0 : 1;
  } finally {
    await connection.close();
  }
}

/** Where the key comes from, and whether it is held back (the base URL moved since it was set). */
function keyColumn(p: { key_source: string; requires_key: boolean; secret_withheld?: boolean }): string {
  const source = p.requires_key ? p.key_source : `${p.key_source} (optional)`;
  return p.secret_withheld ? `${source}, WITHHELD` : source;
}

/** The provider's key labels, in the order requests use them; "-" when it has none. */
function labelsColumn(p: { keys?: { label: string }[]; key_order?: string }): string {
  const labels = (p.keys ?? []).map((k) => k.label);
  if (labels.length === 0) return '-';
  return labels.length > 1 && p.key_order === 'spread' ? `${labels.join(', ')} (spread)` : labels.join(', ');
}

/** One line per key that is resting, withheld or failed last, by label (never the key). */
function keyNotes(p: { name: string; keys?: { label: string; withheld: boolean; resting_until: string | null; rest_reason: string | null; last_error: { status: number; message: string } | null }[] }): string[] {
  const lines: string[] = [];
  for (const key of p.keys ?? []) {
    if (key.withheld && (p.keys?.length ?? 0) > 1) lines.push(`${p.name} key "${key.label}": withheld (the base URL moved since it was set).`);
    else if (key.resting_until) lines.push(`${p.name} key "${key.label}": resting ${key.resting_until.startsWith('until') ? key.resting_until : `until ${key.resting_until}`}, ${key.rest_reason}; last error: ${key.last_error?.message ?? '-'}`);
  }
  return lines;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the provider key, then press Enter and Ctrl-D: ');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
