import type { AgentName } from '../config/config-schema.ts';
import { loadConfigFile } from '../config/load-config.ts';
import { editConfigFile, section } from '../config/write-config.ts';
import type { CliIo } from './cli-io.ts';
import { findConfigPath } from './find-config-path.ts';
import { findDataDir } from './find-data-dir.ts';
import { parseCommand } from './parse-command.ts';
import { UsageError } from './usage-error.ts';

const FIELDS: Record<AgentName, Record<string, string>> = {
  claude: { main: 'main', background: 'background', subagent: 'subagent', 'context-window': 'contextWindow' },
  codex: { main: 'main', 'context-window': 'contextWindow' },
};

/**
 * `patchbay agents show [--json]` and `patchbay agents set claude|codex --main M ...`: the profiles
 * `patchbay claude` / `patchbay codex` start the agents with (config.json `agents`, validated like
 * the rest of the file, so a mistake names its field). Read at each launch: no restart needed.
 */
export async function runAgentsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'show') {
    const { values } = parseCommand(rest, { json: { type: 'boolean' } });
    const { path, required } = findConfigPath(values, findDataDir(values, io.env));
    const config = loadConfigFile(path, { required });
    if (values.json) {
      io.out(`${JSON.stringify(config.agents, null, 2)}\n`);
      return 0;
    }
    for (const agent of ['claude', 'codex'] as const) {
      const profile = config.agents[agent] ?? {};
      const set = Object.entries(profile).map(([field, value]) => `${field}=${value}`);
      io.out(`${agent}: ${set.length ? set.join(' ') : '(defaults: the agent picks its models; no window set)'}\n`);
    }
    return 0;
  }
  if (sub === 'set') {
    const [agent, ...flags] = rest;
    if (agent !== 'claude' && agent !== 'codex') throw new UsageError('Usage: patchbay agents set claude|codex [--main MODEL] [--background MODEL] [--subagent MODEL] [--context-window N] ("none" clears a field)');
    const options = Object.fromEntries(Object.keys(FIELDS.claude).map((flag) => [flag, { type: 'string' as const }]));
    const { values, positionals } = parseCommand(flags, options);
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
    const changes = Object.entries(values).filter(([flag]) => flag in FIELDS.claude);
    if (changes.length === 0) throw new UsageError(`Nothing to set: give --main, --background, --subagent or --context-window (${agent} takes ${Object.keys(FIELDS[agent]).map((f) => `--${f}`).join(', ')})`);
    const { path } = findConfigPath(values, findDataDir(values, io.env, io.err));
    const next = editConfigFile(path, (raw) => {
      const profile = section(section(raw, 'agents'), agent);
      for (const [flag, value] of changes) {
        const field = FIELDS[agent][flag] ?? FIELDS.claude[flag];
        if (value === 'none') delete profile[field];
        else profile[field] = field === 'contextWindow' ? numberOrText(String(value)) : value;
      }
    });
    io.out(`${agent}: ${JSON.stringify(next.agents[agent] ?? {})}\n`);
    return 0;
  }
  throw new UsageError('Usage: patchbay agents show [--json] | patchbay agents set claude|codex [--main MODEL] [--background MODEL] [--subagent MODEL] [--context-window N]');
}

/** A number when the text is one (so the schema can judge its range), else the text (so the schema names the field). */
function numberOrText(text: string): number | string {
  return /^\d+$/.test(text.replace(/[_,]/g, '')) ? Number(text.replace(/[_,]/g, '')) : text;
}
