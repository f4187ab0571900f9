import { STRATEGIES } from '../config/config-schema.ts';
import { commandHelp } from './command-help.ts';
import { connectManagement, type Management } from './connect-management.ts';
import { formatTable } from './format-table.ts';
import { parseCommand } from './parse-command.ts';
import { UsageError } from './usage-error.ts';
import { describeRules, editRule, explainPurpose, RULE_FLAGS } from './routing-rule-command.ts';
import type { CliIo } from './cli-io.ts';

const ACTIONS = ['show', 'strategy', 'fallback', 'alias', 'rule', 'explain', 'pause', 'resume'];

/** `patchbay routing ...`: the Routing page of the dashboard on the command line. */
export async function runRoutingCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (!ACTIONS.includes(action ?? '')) throw new UsageError(commandHelp('routing')!.trimEnd());
  const { values, positionals } = parseCommand(rest, {
    json: { type: 'boolean' },
    strategy: { type: 'string' },
    stream: { type: 'boolean' },
    needs: { type: 'string' },
    'prompt-tokens': { type: 'string' },
    'max-tokens': { type: 'string' },
    key: { type: 'string' },
    ...RULE_FLAGS,
  });
  const connection = await connectManagement(values, io.env, io.err);
  try {
    const { management } = connection;
    if (action === 'pause' || action === 'resume') {
      // Pausing is a state of the running router, not a setting: there is nothing to pause without one
      // (a team's database has its replicas: the pause saved there reaches them).
      if (connection.mode !== 'server' && !connection.team) throw new UsageError(`Patchbay is not running, so there is nothing to ${action}; start it with "npm start".`);
      await management.setRouting({ paused: action === 'pause' });
      io.out(action === 'pause' ? 'Paused: /v1 requests get 503 until "patchbay routing resume".\n' : 'Resumed: routing requests again.\n');
      return 0;
    }
    if (action === 'strategy') {
      const strategy = positionals[0];
      if (!strategy) throw new UsageError(`routing strategy needs a strategy: ${STRATEGIES.join(', ')}.`);
      await management.setRouting({ strategy: strategy as never });
    } else if (action === 'fallback' || action === 'alias') {
      await editMap(management, action, positionals);
    } else if (action === 'rule') {
      await editRule(management, positionals, values);
    } else if (action === 'explain') {
      return await explain(management, positionals[0], values, io);
    }
    const routing = await management.getRouting();
    if (values.json) io.out(`${JSON.stringify(routing, null, 2)}\n`);
    else io.out(describeRouting(routing));
    return 0;
  } finally {
    await connection.close();
  }
}

/** `fallback MODEL a,b` / `alias NAME a,b` set one entry; `none` removes it. The API takes whole maps. */
async function editMap(management: Management, action: 'fallback' | 'alias', positionals: string[]): Promise<void> {
  const [name, list] = positionals;
  if (!name || !list) throw new UsageError(`routing ${action} needs a name and a comma-separated list of models (or "none" to remove it).`);
  const field = action === 'fallback' ? 'fallbacks' : 'aliases';
  const current = { ...(await management.getRouting())[field] };
  if (list === 'none') {
    if (!(name in current)) throw new UsageError(`There is no ${action} named "${name}".`);
    delete current[name];
  } else {
    current[name] = list.split(',').map((m) => m.trim()).filter(Boolean);
  }
  await management.setRouting({ [field]: current });
}

async function explain(management: Management, model: string | undefined, values: Record<string, string | boolean | undefined>, io: CliIo): Promise<number> {
  if (!model) throw new UsageError('routing explain needs a model, e.g. "patchbay routing explain llama-3.3-70b".');
  const number = (flag: string) => {
    const text = values[flag] as string | undefined;
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${flag} must be a whole number, not "${text}".`);
    return n;
  };
  const result = await management.explainRoute({
    model,
    strategy: values.strategy as never,
    stream: values.stream === true ? true : undefined,
    needs: values.needs ? ((values.needs as string).split(',') as never) : undefined,
    prompt_tokens: number('prompt-tokens'),
    max_tokens: number('max-tokens'),
    key_id: values.key as string | undefined,
    ...explainPurpose(values),
  });
  if (values.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  if (result.rule) io.out(`rule: ${result.rule.name ?? `rules[${result.rule.index}]`} (${result.rule.why}) -> ${result.rule.model}\n`);
  io.out(`${result.reason}\n\n`);
  const percent = (n: number) => `${Math.round(n * 100)}%`;
  io.out(
    formatTable(
      ['#', 'ENDPOINT', 'SCORE', 'LATENCY', 'COST', 'AVAILABILITY', 'EXPECTED USD'],
      result.candidates.map((c) => [
        String(c.rank),
        c.endpoint,
        c.score.toFixed(3),
        c.parts ? `${c.parts.latency.value.toFixed(2)} x ${percent(c.parts.latency.weight)}` : '-',
        c.parts ? `${c.parts.cost.value.toFixed(2)} x ${percent(c.parts.cost.weight)}` : '-',
        c.parts ? `${c.parts.availability.value.toFixed(2)} x ${percent(c.parts.availability.weight)}` : '-',
        c.expected_cost_usd.toFixed(6),
      ]),
    ),
  );
  if (result.skipped.length > 0) {
    io.out('\nLeft out:\n');
    for (const s of result.skipped) io.out(`  ${s.endpoint}: ${s.code}: ${s.reason}\n`);
  }
  return result.candidates.length > 0 ? 0 : 1;
}

function describeRouting(routing: Awaited<ReturnType<Management['getRouting']>>): string {
  const lines = [
    `strategy: ${routing.strategy}${routing.paused ? ' (PAUSED)' : ''}`,
    `weights: latency ${routing.weights.latency}, cost ${routing.weights.cost}, availability ${routing.weights.availability}`,
  ];
  const fallbacks = Object.entries(routing.fallbacks);
  lines.push(fallbacks.length ? 'fallback chains:' : 'fallback chains: none');
  for (const [model, chain] of fallbacks) lines.push(`  ${model} -> ${chain.join(' -> ')}`);
  const aliases = Object.entries(routing.aliases);
  lines.push(aliases.length ? 'custom aliases:' : 'custom aliases: none');
  for (const [name, members] of aliases) lines.push(`  ${name} = ${members.join(', ')}`);
  lines.push(...describeRules(routing.rules));
  return `${lines.join('\n')}\n`;
}
