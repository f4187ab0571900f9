import { resolveDataDir } from '../config/data-dir.ts';
import { createPatchbay } from '../app/create-patchbay.ts';
import { readVersion } from '../runtime/read-version.ts';
import type { ProviderView } from '../management/provider-view.ts';
import { parseCommand } from './parse-command.ts';
import { UsageError } from './usage-error.ts';
import type { CliIo } from './cli-io.ts';

export async function runServeCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand(args, { port: { type: 'string', short: 'p' }, host: { type: 'string' }, database: { type: 'string' }, 'secrets-file': { type: 'string' } });
  const databaseUrl = (values.database as string | undefined) ?? (io.env.PATCHBAY_DATABASE_URL || undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new UsageError(`--database takes a PostgreSQL URL (postgres://USER@HOST:PORT/DB), not "${databaseUrl.replace(/:[^:@/]*@/, ':***@')}".`);
  }
  if (values.database !== undefined && carriesPassword(values.database as string)) {
    io.err(
      'Warning: --database carries a password, which every user of this machine can read in the process list (ps) while Patchbay runs. ' +
        'Give the URL in PATCHBAY_DATABASE_URL instead, or as PATCHBAY_DATABASE_URL=... in the secrets file (--secrets-file, mode 600).\n',
    );
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535, not "${values.port}".`);
  }
  const dataDir = (values['data-dir'] as string | undefined) ?? resolveDataDir(io.env);
  const patchbay = await createPatchbay({
    dataDir,
    configPath: values.config as string | undefined,
    host: values.host as string | undefined,
    port,
    env: io.env,
    keychainService: io.env.PATCHBAY_KEYCHAIN_SERVICE || undefined,
    log: (message) => io.err(`${message}\n`),
    databaseUrl,
    secretsFile: (values['secrets-file'] as string | undefined) ?? (io.env.PATCHBAY_SECRETS_FILE || undefined),
    announce: true,
  });
  if (patchbay.firstKey) {
    io.err(
      `Created your first Patchbay API key. It is shown only this once; keep it:\n\n    ${patchbay.firstKey}\n\n` +
        `Point any OpenAI client at ${patchbay.url}/v1 with this key. More keys: "patchbay keys create --name NAME".\n`,
    );
  }
  for (const url of patchbay.urls) io.out(`Patchbay listening on ${url}/v1\n`);
  // A team's replica says which release, which database (never its password) and where people reach it.
  if (patchbay.database) io.out(`Patchbay ${readVersion()} on PostgreSQL at ${patchbay.database} (keys, usage and settings shared by the replicas).\n`);
  if (patchbay.publicUrl) io.out(`Public URL: ${patchbay.publicUrl} (links, snippets and sign-in codes use it; the dashboard accepts this origin only).\n`);
  // A team's replica or a secrets file: no keychain, so keys go in the file or the service's environment.
  const secretsFile = (values['secrets-file'] as string | undefined) ?? (io.env.PATCHBAY_SECRETS_FILE || undefined);
  io.out(describeProviderKeys(patchbay.management.listProviders(), secretsFile ?? (patchbay.database ? 'the service\'s environment' : undefined)));
  const base = patchbay.publicUrl ?? patchbay.url;
  // The sign-in code travels in the URL fragment, which browsers never send to a server or log. A
  // team's replica writes to a service log others read and keep: no code there, the CLI gives one.
  const signIn = patchbay.database ? `run "patchbay ui" on this machine for a one-time link (a team's replica prints none into its log)` : await patchbay.signInLink();
  io.out(`Dashboard: ${base}/ui/\nSign in: ${signIn}\n`);
  if (patchbay.exposed) {
    io.err(
      `Warning: listening on ${patchbay.host}, so the API is reachable from the network, protected only by Patchbay keys (and the management API by the admin token). ` +
        `To keep it on this machine, start with --host 127.0.0.1.\n`,
    );
  }

  await new Promise<void>((resolve) => {
    let signals = 0;
    // The first signal drains then stops (patchbay.shutdown); a second one stops waiting for the proxy.
    const stop = (signal: NodeJS.Signals) => {
      if (++signals > 1) {
        void patchbay.shutdown();
        return;
      }
      io.err(`${signal}: finishing in-flight requests and saving usage...\n`);
      patchbay.shutdown().then(
        () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          io.err('Patchbay stopped.\n');
          resolve();
        },
        (error: unknown) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          io.err(`Patchbay stopped, but not cleanly: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve();
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

/**
 * The start's word on provider keys (the dashboard's banner says the same): which enabled providers
 * can answer and where each key comes from, and which still need one.
 */
export function describeProviderKeys(providers: ProviderView[], secretsIn?: string): string {
  const enabled = providers.filter((p) => p.enabled);
  const ready = enabled.filter((p) => p.key_source !== 'none' && !p.secret_withheld).map((p) => `${p.name} (${p.key_source === 'env' ? (p.key_env ?? 'environment') : 'keychain'})`);
  const keyless = enabled.filter((p) => !p.requires_key && p.key_source === 'none').map((p) => p.name);
  const missing = enabled.filter((p) => p.requires_key && (p.key_source === 'none' || p.secret_withheld)).map((p) => p.name);
  const lines = [`Providers with a key: ${ready.length ? ready.join(', ') : 'none yet'}${keyless.length ? `; needing none: ${keyless.join(', ')}` : ''}.`];
  const how = secretsIn ? `add its variable (OPENAI_API_KEY=..., ...) to ${secretsIn} and restart` : `add one with "patchbay providers set-key NAME", the dashboard's Providers page, or the provider's environment variable`;
  if (missing.length) lines.push(`Without a key: ${missing.join(', ')} (${how}).`);
  return `${lines.join('\n')}\n`;
}

/** Whether a database URL holds a password (postgres://user:PASSWORD@host, or ?password=). */
function carriesPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}
