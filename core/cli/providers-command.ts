import { validateBody } from '../http/validate-body.ts';
import { providerSecretSchema } from '../management/management-schemas.ts';
import { commandHelp } from './command-help.ts';
import { connectManagement } from './connect-management.ts';
import { formatTable } from './format-table.ts';
import { parseCommand, UsageError, type CliIo } from './run-cli.ts';

export async function runProvidersCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (!['list', 'set-key', 'delete-key', 'test'].includes(action ?? '')) throw new UsageError(commandHelp('providers')!.trimEnd());
  const { values, positionals } = parseCommand(rest, { json: { type: 'boolean' } });
  const name = positionals[0];
  if (action !== 'list' && !name) throw new UsageError(`providers ${action} needs the provider name (see "patchbay providers list").`);
  // Read the secret before connecting, so nothing else is waiting on the terminal.
  const secret = action === 'set-key' ? (await (io.stdin ?? readStdin)()).trim() : '';
  if (action === 'set-key') validateBody(providerSecretSchema, { secret });
  const connection = await connectManagement(values, io.env);
  try {
    const { management } = connection;
    if (action === 'list') {
      const providers = await management.listProviders();
      if (values.json) io.out(`${JSON.stringify(providers, null, 2)}\n`);
      else io.out(formatTable(['NAME', 'PROTOCOL', 'ENABLED', 'KEY', 'BASE URL'], providers.map((p) => [p.name, p.protocol, p.enabled ? 'yes' : 'no', keyColumn(p), p.base_url])));
      for (const p of providers) if (p.notice) io.out(`${p.notice}\n`);
      return 0;
    }
    if (action === 'set-key') {
      const view = await management.setProviderSecret(name, secret);
      io.out(`Stored the ${name} key in the OS keychain${view.key_source === 'env' ? ' (the environment variable still takes precedence while it is set)' : ''}.\n`);
      return 0;
    }
    if (action === 'delete-key') {
      await management.deleteProviderSecret(name);
      io.out(`Deleted the ${name} key from the OS keychain.\n`);
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

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the provider key, then press Enter and Ctrl-D: ');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
