import type { AgentName, AgentProfiles } from '../config/config-schema.ts';

/**
 * How `patchbay claude` and `patchbay codex` start an agent, as data: the environment variables and
 * the arguments put before the user's own. Pure, so the CLI and the dashboard's snippets (through
 * GET /api/agents) say the same thing.
 */
export interface AgentLaunch {
  agent: AgentName;
  /** The program looked up on PATH. */
  program: 'claude' | 'codex';
  /** Variables set for the agent (the key under `keyVariable`, shown as a placeholder where no key is given). */
  env: Record<string, string>;
  /** Variables removed from the agent's environment, so they cannot override Patchbay's. */
  unset: string[];
  /** Arguments before the user's own. */
  args: string[];
  /** The variable holding the Patchbay key. */
  keyVariable: string;
}

/** Where a snippet without a key names it: the one value the shell is meant to expand. */
export const KEY_PLACEHOLDER = '$PATCHBAY_KEY';

/** How a user installs each program, for the message when it is missing. */
export const INSTALL_HINTS: Record<AgentName, string> = {
  claude: 'npm install -g @anthropic-ai/claude-code',
  codex: 'npm install -g @openai/codex',
};

/** The provider entry Codex gets through `-c`, so the user's config.toml is never edited. */
export const CODEX_PROVIDER_ID = 'patchbay';

/** A model id that Claude Code knows the window of (it assumes 1M tokens for any other). */
export function isClaudeModel(model: string): boolean {
  return /claude/i.test(model);
}

export interface LaunchInput {
  /** The running Patchbay's origin, e.g. http://127.0.0.1:8790 (no /v1). */
  origin: string;
  /** The Patchbay key, or null for a placeholder (`$PATCHBAY_KEY`) in a snippet. */
  key: string | null;
  profiles: AgentProfiles;
  /** The window of the main model from Patchbay's catalog, used when the profile sets none. */
  catalogWindow?: (model: string) => number | undefined;
}

export function planAgentLaunch(agent: AgentName, input: LaunchInput): AgentLaunch {
  return agent === 'claude' ? planClaude(input) : planCodex(input);
}

function planClaude({ origin, key, profiles, catalogWindow }: LaunchInput): AgentLaunch {
  const profile = profiles.claude ?? {};
  const env: Record<string, string> = {
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_AUTH_TOKEN: key ?? KEY_PLACEHOLDER,
    // Claude Code then says what each request is for (x-claude-code-request-class and the like; off
    // behind a custom base URL by default): routing.rules route by it, the Sessions page sums by it.
    CLAUDE_CODE_GATEWAY_HINT_HEADERS: '1',
  };
  if (profile.main) {
    env.ANTHROPIC_MODEL = profile.main;
    env.ANTHROPIC_DEFAULT_OPUS_MODEL = profile.main;
    env.ANTHROPIC_DEFAULT_SONNET_MODEL = profile.main;
  }
  if (profile.background) env.ANTHROPIC_DEFAULT_HAIKU_MODEL = profile.background;
  if (profile.subagent) env.CLAUDE_CODE_SUBAGENT_MODEL = profile.subagent;
  const window = profile.contextWindow ?? (profile.main && !isClaudeModel(profile.main) ? catalogWindow?.(profile.main) : undefined);
  if (window) {
    env.CLAUDE_CODE_AUTO_COMPACT_WINDOW = String(window);
    env.CLAUDE_CODE_MAX_CONTEXT_TOKENS = String(window);
  }
  // An ANTHROPIC_API_KEY left in the shell would be sent beside Patchbay's token.
  return { agent: 'claude', program: 'claude', env, unset: ['ANTHROPIC_API_KEY'], args: [], keyVariable: 'ANTHROPIC_AUTH_TOKEN' };
}

function planCodex({ origin, key, profiles }: LaunchInput): AgentLaunch {
  const profile = profiles.codex ?? {};
  const id = CODEX_PROVIDER_ID;
  const toml = (value: string) => JSON.stringify(value);
  const args = [
    '-c', `model_provider=${toml(id)}`,
    '-c', `model_providers.${id}.name=${toml('Patchbay')}`,
    '-c', `model_providers.${id}.base_url=${toml(`${origin}/v1`)}`,
    '-c', `model_providers.${id}.env_key=${toml('PATCHBAY_KEY')}`,
    '-c', `model_providers.${id}.wire_api=${toml('responses')}`,
    // Patchbay's models as Codex's catalog (window, reasoning levels, apply_patch): Codex fetches it with the key.
    '-c', `model_providers.${id}.model_catalog_url=${toml(`${origin}/v1/codex/models`)}`,
    // One WebSocket per session, only the new items each turn (Codex falls back to HTTP if it cannot connect).
    '-c', `model_providers.${id}.supports_websockets=true`,
  ];
  if (profile.main) args.push('-c', `model=${toml(profile.main)}`);
  // The catalog has each model's window; a profile's own wins over it.
  if (profile.contextWindow) args.push('-c', `model_context_window=${profile.contextWindow}`);
  return { agent: 'codex', program: 'codex', env: { PATCHBAY_KEY: key ?? KEY_PLACEHOLDER }, unset: [], args, keyVariable: 'PATCHBAY_KEY' };
}

/**
 * The launch as a shell command a user can paste (POSIX quoting; the key as `$PATCHBAY_KEY` when not
 * given). Every value is single-quoted but the key placeholder: a profile value is data, and a
 * value left bare (one starting with `$` was) would run when pasted. Arguments are quoted unless
 * made only of characters no shell treats specially (`-c`).
 */
export function launchAsShell(launch: AgentLaunch): string {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const argument = (value: string) => (/^[A-Za-z0-9_./:=-]+$/.test(value) ? value : quote(value));
  const lines = [
    ...launch.unset.map((name) => `unset ${name}`),
    ...Object.entries(launch.env).map(([name, value]) => `export ${name}=${value === KEY_PLACEHOLDER ? value : quote(value)}`),
  ];
  const command = [launch.program, ...launch.args.map(argument)];
  const parts: string[] = [command[0]];
  for (let i = 1; i < command.length; i += 2) parts.push(command.slice(i, i + 2).join(' '));
  lines.push(parts.join(' \\\n  '));
  return lines.join('\n');
}
