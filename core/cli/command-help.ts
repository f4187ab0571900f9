/**
 * The usage text of each command and subcommand, printed by `--help` anywhere on the command line
 * (`patchbay keys create --help`, `patchbay help keys`). Keep it true: it is the user's manual.
 */

const COMMON = `Options every command takes:
  --data-dir DIR   where patchbay.db and config.json live (default: PATCHBAY_HOME or the OS app-data folder)
  --config FILE    config file to use instead of DATA_DIR/config.json
  -h, --help       this help`;

const KEY_FLAGS = `  --name NAME          a label to recognise the key by
  --expires DATE       YYYY-MM-DD (midnight UTC) or an ISO timestamp; the key stops working then
  --models a,b         models the key may use (aliases, provider/model ids); default all
  --rpm N              requests per minute
  --tpm N              tokens per minute
  --token-cap N        tokens per calendar month (UTC)
  --usd-cap USD        spend per calendar month (UTC)`;

const KEYS: Record<string, string> = {
  create: `Usage: patchbay keys create --name NAME [--expires YYYY-MM-DD] [--models a,b] [--rpm N] [--tpm N] [--token-cap N] [--usd-cap USD]

Creates a Patchbay API key. Prints only the key on stdout, once; it is stored as a hash.

${KEY_FLAGS}`,
  update: `Usage: patchbay keys update ID [--name NAME] [--expires DATE] [--models a,b] [--rpm N] [--tpm N] [--token-cap N] [--usd-cap USD] [--json]

Changes a key's settings; a flag given "none" clears that setting (e.g. --rpm none).

${KEY_FLAGS}
  --json               print the updated key as JSON`,
  list: `Usage: patchbay keys list [--json]

Lists keys (never their secrets) with their limits and this month's usage.`,
  rotate: `Usage: patchbay keys rotate ID

Gives the key a new secret with the same settings and prints it once; the old secret stops working at once.`,
  revoke: `Usage: patchbay keys revoke ID

Revokes the key: requests with it get 401 from then on.`,
};

const PROVIDERS: Record<string, string> = {
  list: `Usage: patchbay providers list [--json]

Lists providers and where each one's key comes from: env, keychain or none, and the labels of its
keys in the order requests use them (never a key), with a line for each key that is resting or withheld.`,
  'set-key': `Usage: patchbay providers set-key NAME [--label LABEL]

Reads the provider's secret from standard input and stores it in the OS keychain, e.g.
  echo "$ANTHROPIC_KEY" | patchbay providers set-key anthropic
  echo "$GROQ_WORK_KEY" | patchbay providers set-key groq --label work

  --label LABEL   one more key of the provider under this label (1 to 32 of a-z, 0-9, - and _);
                  the same label again replaces that key. Without it: the unlabelled "default" key.`,
  'delete-key': `Usage: patchbay providers delete-key NAME [--label LABEL]

Deletes the provider's secret (the one under LABEL, else the default one) from the OS keychain
(an environment variable, if set, still applies).`,
  test: `Usage: patchbay providers test NAME

A cheap authenticated call to the provider (lists its models; costs no tokens). Exits 1 when it fails.`,
};

const ROUTING: Record<string, string> = {
  show: `Usage: patchbay routing show [--json]

The default strategy, balanced weights, fallback chains, custom aliases and routing rules (and whether routing is paused).`,
  strategy: `Usage: patchbay routing strategy balanced|latency|cost|availability|round-robin

Sets the default strategy (saved in config.json; the next request uses it).`,
  fallback: `Usage: patchbay routing fallback MODEL a,b,c | none

Models tried, in order, after MODEL's own endpoints when a request sends no X-Patchbay-Fallback
(at most 5); "none" removes MODEL's chain. MODEL is the name exactly as requests send it.`,
  alias: `Usage: patchbay routing alias NAME provider/model,provider/model | none

Your own alias: NAME routed by strategy over those models (provider/model ids or built-in aliases,
at most 16); "none" removes it. A custom alias may take a built-in alias's or a model id's name.`,
  rule: `Usage: patchbay routing rule NAME --model MODEL [--class C,..] [--agent-type T,..] [--auxiliary-type T,..] [--tier GLOB,..] [--thinking on|off] [--prompt-tokens-at-least N] [--window-share F] [--tools T,..] [--at N] | none

A routing rule: a request that says what it is for (Claude Code's gateway hints, sent with
CLAUDE_CODE_GATEWAY_HINT_HEADERS=1, which "patchbay claude" sets) and matches every condition
given goes to MODEL (a model or an alias) instead of the model it asked for. Rules are tried in
order, first match wins; --at N puts the rule at position N (1 first). "none" removes it.
  --class          main, subagent, workflow, compaction, auxiliary, side_reply
  --agent-type     a subagent's type (Explore, Plan, general-purpose, custom ...)
  --tier           the model the client asked for, * for any run of characters (claude-haiku-*)
  --thinking       on or off: the request asks for extended thinking (or a reasoning effort)
  --prompt-tokens-at-least N, --window-share F   the prompt's size, in tokens or as a share (0 to 1)
                   of the asked model's context window
  --tools          the request offers a tool of this name or type (web_search)
Example: patchbay routing rule cheap-compaction --class compaction --model gemini-2.5-flash`,
  explain: `Usage: patchbay routing explain MODEL [--strategy S] [--stream] [--needs tools,images] [--prompt-tokens N] [--max-tokens N] [--key ID] [--class C] [--agent-type T] [--thinking on|off] [--tools T,..] [--json]

Which provider now, and why: the ranked candidates with their score parts, and every endpoint left
out with its reason; with --class (and the other purpose flags) first the routing rule such a
request would meet. Changes nothing. Exits 1 when no endpoint could serve the request.`,
  pause: `Usage: patchbay routing pause

Pauses the running Patchbay: /v1 requests get 503 until "patchbay routing resume" (not saved; a restart resumes).
With PATCHBAY_DATABASE_URL (a team's replicas) it pauses every replica, saved until resumed.`,
  resume: `Usage: patchbay routing resume

Resumes routing after "patchbay routing pause".`,
};

const COMMANDS: Record<string, string> = {
  serve: `Usage: patchbay serve [--port N] [--host H] [--data-dir DIR] [--config FILE] [--database URL] [--secrets-file PATH]

Starts the router (default http://127.0.0.1:8790/v1). Stop it with Ctrl-C or SIGTERM: in-flight
requests finish (behind a proxy that polls GET /health, it first says "draining" for server.drainMs).
A team's replica (--database) makes no key and prints no sign-in link: "patchbay keys create" and
"patchbay ui" give them in your terminal.

  --port N, -p N   port to listen on (0 picks a free one)
  --host H         address to listen on (default 127.0.0.1). Anything but loopback makes the API
                   reachable from the network, protected only by Patchbay keys.
  --database URL   keys, usage and caps in PostgreSQL (postgres://USER@HOST:PORT/DB; or set
                   PATCHBAY_DATABASE_URL), shared by every replica started with the same URL.
                   Without it: SQLite in the data dir. A password here shows in "ps": put a URL
                   with one in PATCHBAY_DATABASE_URL or in the secrets file instead.
  --secrets-file PATH  provider secrets as NAME=value lines (OPENAI_API_KEY=sk-...; or set
                   PATCHBAY_SECRETS_FILE). Must be readable by its owner only (chmod 600), else
                   Patchbay does not start. Variables set in the environment win over the file.`,
  keys: `Usage:\n${Object.values(KEYS).map((text) => `  ${text.split('\n')[0].replace('Usage: ', '')}`).join('\n')}\n\nKey settings:\n${KEY_FLAGS}\n\n"patchbay keys create --help" and the like tell more.`,
  providers: `Usage:\n${Object.values(PROVIDERS).map((text) => `  ${text.split('\n')[0].replace('Usage: ', '')}`).join('\n')}\n\n"patchbay providers set-key --help" and the like tell more.`,
  routing: `Usage:\n${Object.values(ROUTING).map((text) => `  ${text.split('\n')[0].replace('Usage: ', '')}`).join('\n')}\n\n"patchbay routing explain --help" and the like tell more.`,
  claude: agentHelp('claude', 'Claude Code', 'ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_GATEWAY_HINT_HEADERS=1 (Claude Code says what\neach request is for: "patchbay routing rule" routes by it), and from the profile ANTHROPIC_MODEL (with the opus and\nsonnet tiers), ANTHROPIC_DEFAULT_HAIKU_MODEL (background), CLAUDE_CODE_SUBAGENT_MODEL, and\nCLAUDE_CODE_AUTO_COMPACT_WINDOW / CLAUDE_CODE_MAX_CONTEXT_TOKENS (the window; for a non-Claude main model\nPatchbay\'s catalog window when the profile sets none)'),
  codex: agentHelp('codex', 'Codex CLI', 'PATCHBAY_KEY, and "-c" overrides (your config.toml is never edited): model_provider "patchbay" with\nits base_url, env_key, wire_api "responses", model_catalog_url (the models as a Codex catalog:\nwindow, reasoning levels, apply_patch) and supports_websockets, and from the profile model and model_context_window'),
  agents: `Usage: patchbay agents show [--json]
       patchbay agents set claude [--main MODEL] [--background MODEL] [--subagent MODEL] [--context-window N]
       patchbay agents set codex [--main MODEL] [--context-window N]

The profiles "patchbay claude" and "patchbay codex" start the agents with, saved in config.json
(agents.claude, agents.codex) and validated with it. "none" clears a field. Claude Code: main is
ANTHROPIC_MODEL (and its opus and sonnet tiers), background its haiku tier (session titles and
other background work), subagent CLAUDE_CODE_SUBAGENT_MODEL; context-window the main model's real
window (Claude Code assumes 1M tokens for models it does not know). Codex: its model and window.`,
  models: `Usage: patchbay models [list] [--json]
       patchbay models update [--url URL]

"models" lists the models the running Patchbay serves (those the providers' own lists add
included), with their windows and prices in USD per million tokens, and says how old the prices
are; "unknown" where no price table knows a model. "update" fetches the newest price table (config
catalog.url; default genai-prices' own copy on GitHub), checks it (a table that drops most models
or prices them at 0 is refused) and puts it in force without a restart; without a running
Patchbay it is written to the data dir for the next start. Offline it says so and exits 1; the
catalog in use stays.

  --url URL   fetch this table this once (http or https)`,
  usage: `Usage: patchbay usage [--month YYYY-MM] [--by model|provider|provider-key|key|day|session] [--json] [--export csv|json]

A month's totals (default: this month, UTC), grouped by model unless --by says otherwise.

  --month YYYY-MM      the month (UTC)
  --by GROUP           model, provider, provider-key (each provider key by label), key, day or
                       session (each session with its agents nested, cost and what prompt caching saved)
  --json               the totals as JSON
  --export csv|json    every request of the month, one row each (CSV cells that a spreadsheet
                       would run as a formula are prefixed with ')`,
};

function agentHelp(agent: string, name: string, sets: string): string {
  return `Usage: patchbay ${agent} [--key KEY] [--print] [--data-dir DIR] [--config FILE] [--] [${agent} arguments]

Starts ${name} (the "${agent}" on PATH) through the running Patchbay. Everything after Patchbay's own
options (or after "--") goes to ${agent} as it is, --help included; its exit code is this command's.

  --key KEY   the Patchbay key to give it (else PATCHBAY_KEY, else one made for ${agent} on first use
              and kept in the OS keychain, made again if revoked)
  --print     print the equivalent shell commands instead of starting it (the key as $PATCHBAY_KEY)

It sets ${sets}.`;
}

const SUBCOMMANDS: Record<string, Record<string, string>> = { keys: KEYS, providers: PROVIDERS, routing: ROUTING };

/** The help of `command [subcommand]`, or null when there is no such command. */
export function commandHelp(command: string, subcommand?: string): string | null {
  const text = (subcommand && SUBCOMMANDS[command]?.[subcommand]) || COMMANDS[command];
  return text ? `${text}\n\n${COMMON}\n` : null;
}

/** True when -h or --help appears among a command's arguments (before a "--"). */
export function wantsHelp(args: string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
