import { ConfigError } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { DataDirInUseError } from '../app/data-dir-lock.ts';
import { DatabaseStartError } from '../postgres/database-unavailable.ts';
import { findPortHolder } from '../app/find-port-holder.ts';
import { withCommandName } from './invoked-as.ts';
import { withEscapedControls } from './escape-output.ts';
import { commandHelp, wantsHelp } from './command-help.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';
import { readVersion } from '../runtime/read-version.ts';

export const HELP = `Patchbay: a local OpenAI-compatible router for LLM providers.

Usage:
  patchbay serve [--port N] [--host H] [--data-dir DIR] [--config FILE]
                 [--database postgres://USER@HOST:PORT/DB] [--secrets-file PATH]
      Start the router (default http://127.0.0.1:8790/v1). --database: a team's replica on
      PostgreSQL (or PATCHBAY_DATABASE_URL); --secrets-file: provider secrets as NAME=value
      lines, mode 600 (or PATCHBAY_SECRETS_FILE). docs/team.md runs it as a service.
  patchbay keys create --name NAME [--expires YYYY-MM-DD] [--models a,b] [--token-cap N]
                       [--usd-cap USD] [--rpm N] [--tpm N]
      Create a Patchbay API key; prints only the key, once.
  patchbay keys update ID [the create flags; "none" clears one]
  patchbay keys list [--json]
  patchbay keys rotate ID     New secret for the same key; the old one stops working at once.
  patchbay keys revoke ID
  patchbay providers list [--json]
  patchbay providers set-key NAME    Reads the secret from stdin into the OS keychain.
  patchbay providers delete-key NAME
  patchbay providers test NAME       A cheap authenticated call to the provider.
  patchbay usage [--month YYYY-MM] [--by model|provider|provider-key|key|day|session] [--json] [--export csv|json]
      A month's totals (default: this month, UTC).
  patchbay routing show|strategy|fallback|alias|explain|pause|resume ...
      The default strategy, fallback chains, custom aliases; which provider now, and why.
  patchbay ui [--no-open]
      Opens the running Patchbay's dashboard in a browser, signed in: prints a one-time
      sign-in link (it works once, for 10 minutes) and opens it when a display is available.
  patchbay claude [--key KEY] [--print] [--] [claude arguments]
  patchbay codex [--key KEY] [--print] [--] [codex arguments]
      Starts Claude Code / Codex CLI through the running Patchbay, with a key of its own
      (made on first use, kept in the keychain) and its profile (patchbay agents).
  patchbay agents show [--json] | set claude|codex [--main M] [--background M] [--subagent M] [--context-window N]
      The models and window "patchbay claude" and "patchbay codex" start the agents with.
  patchbay models [list] [--json] | update [--url URL]
      The models and prices (and how old they are); update fetches the newest price table.

While "patchbay serve" runs, these commands go through its management API; otherwise they
work on the data dir directly.

Common options:
  --data-dir DIR   where patchbay.db and config.json live (default: PATCHBAY_HOME or the OS app-data folder)
  --config FILE    config file to use instead of DATA_DIR/config.json
  -h, --help       this help
  -v, --version    the version

Provider secrets come from the OS keychain ("providers set-key") or, overriding it, from
OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, TOGETHER_API_KEY.
`;

const defaultIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** Runs one CLI invocation; returns the exit code. Errors a user can fix are one clear line, not a stack. */
export async function runCli(argv: string[], given: CliIo = defaultIo): Promise<number> {
  const io = withCommandName(withEscapedControls(given));
  const [command, ...rest] = argv;
  // Help comes before any other check, so "keys create --help" never asks for --name first.
  // The agents' own --help goes to them: "patchbay help claude" tells Patchbay's side.
  const passesThrough = command === 'claude' || command === 'codex';
  const help = command === 'help' ? commandHelp(rest[0] ?? '', rest[1]) : !passesThrough && wantsHelp(rest) ? commandHelp(command ?? '', rest[0]) : null;
  if (help) {
    io.out(help);
    return 0;
  }
  try {
    // Each command's module is loaded when it runs: a server does not hold the other commands' code
    // (and what only they import) for the day it runs, nor does a one-off command load the server.
    switch (command) {
      case 'serve':
        return await (await import('./serve-command.ts')).runServeCommand(rest, io);
      case 'keys':
        return await (await import('./keys-command.ts')).runKeysCommand(rest, io);
      case 'providers':
        return await (await import('./providers-command.ts')).runProvidersCommand(rest, io);
      case 'usage':
        return await (await import('./usage-command.ts')).runUsageCommand(rest, io);
      case 'routing':
        return await (await import('./routing-command.ts')).runRoutingCommand(rest, io);
      case 'ui':
        return await (await import('./ui-command.ts')).runUiCommand(rest, io);
      case 'claude':
      case 'codex':
        return await (await import('./agent-command.ts')).runAgentCommand(command, rest, io);
      case 'agents':
        return await (await import('./agents-command.ts')).runAgentsCommand(rest, io);
      case 'models':
        return await (await import('./models-command.ts')).runModelsCommand(rest, io);
      case '-v':
      case '--version':
      case 'version':
        io.out(`${readVersion()}\n`);
        return 0;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.out(HELP);
        return command === undefined ? 1 : 0;
      default:
        io.err(`Unknown command "${command}".\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError || error instanceof PatchbayError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(error as Error).message}\n`);
      return 2;
    }
    if (error instanceof DataDirInUseError || error instanceof DatabaseStartError) {
      io.err(`${error.message}\n`);
      return 1;
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      const port = (error as NodeJS.ErrnoException & { port?: number }).port;
      const holder = port ? await findPortHolder(port) : null;
      const who = holder ? `${holder.name ?? 'a process'} (pid ${holder.pid})` : 'another program';
      io.err(`Port ${port ?? '(unknown)'} is already in use by ${who}. Stop it, or start Patchbay with --port N (or set "port" in config.json).\n`);
      return 1;
    }
    throw error;
  }
}
