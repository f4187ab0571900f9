import { currentMonth, monthRange } from '../usage/month-range.ts';
import { USAGE_GROUPS } from '../usage/usage-backend.ts';
import { connectManagement, type Management } from './connect-management.ts';
import type { SessionAgent } from '../usage/usage-views.ts';
import { formatTable } from './format-table.ts';
import { formatUsd } from './format-usd.ts';
import { parseCommand } from './parse-command.ts';
import { UsageError } from './usage-error.ts';
import type { CliIo } from './cli-io.ts';

/** The summary's groupings, and `session`: the month's sessions (GET /api/usage/sessions). */
const GROUPS = [...USAGE_GROUPS, 'session'] as const;

export async function runUsageCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand(args, { month: { type: 'string' }, json: { type: 'boolean' }, by: { type: 'string' }, export: { type: 'string' } });
  const month = (values.month as string | undefined) ?? currentMonth();
  try {
    monthRange(month);
  } catch (error) {
    throw new UsageError(`--month: ${(error as Error).message}`);
  }
  const by = (values.by as string | undefined) ?? 'model';
  if (!(GROUPS as readonly string[]).includes(by)) throw new UsageError(`--by must be one of ${GROUPS.join(', ')}, not "${by}".`);
  const format = values.export as string | undefined;
  if (format !== undefined && format !== 'csv' && format !== 'json') throw new UsageError(`--export must be csv or json, not "${format}".`);
  const connection = await connectManagement(values, io.env, io.err);
  try {
    if (format) {
      io.out(await connection.management.exportUsage(month, format));
      return 0;
    }
    if (by === 'session') return await printSessions(connection.management, month, values.json === true, io);
    const summary = await connection.management.usageSummary(month, by as Exclude<(typeof GROUPS)[number], 'session'>);
    const total = summary.rows.reduce(
      (sum, r) => ({
        requests: sum.requests + r.requests,
        errors: sum.errors + r.errors,
        prompt_tokens: sum.prompt_tokens + r.prompt_tokens,
        completion_tokens: sum.completion_tokens + r.completion_tokens,
        total_tokens: sum.total_tokens + r.total_tokens,
        cache_read_tokens: sum.cache_read_tokens + r.cache_read_tokens,
        cache_write_tokens: sum.cache_write_tokens + r.cache_write_tokens,
        reasoning_tokens: sum.reasoning_tokens + r.reasoning_tokens,
        cost_usd: sum.cost_usd + r.cost_usd,
      }),
      { requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, cost_usd: 0 },
    );
    // Keys by name, as the dashboard shows them (the id beside it: names need not be unique).
    const names = by === 'key' ? new Map((await connection.management.listKeys()).map((k) => [k.id, k.name])) : new Map<string, string>();
    const label = (group: string | null) => (group === null ? (by === 'key' ? 'no key' : 'refused before routing') : names.has(group) ? `${names.get(group)} (${group})` : group);
    if (values.json) {
      const rows = by === 'key' ? summary.rows.map((r) => ({ ...r, key_name: r.group === null ? null : (names.get(r.group) ?? null) })) : summary.rows;
      io.out(`${JSON.stringify({ ...summary, rows, total }, null, 2)}\n`);
      return 0;
    }
    if (summary.rows.length === 0) {
      io.out(`No requests recorded in ${month}.\n`);
      return 0;
    }
    // CACHE READ / CACHE WRITE are parts of PROMPT, REASONING a part of COMPLETION (not additions).
    const cells = (label: string, r: typeof total) => [
      label, String(r.requests), String(r.errors), String(r.prompt_tokens), String(r.cache_read_tokens), String(r.cache_write_tokens),
      String(r.completion_tokens), String(r.reasoning_tokens), String(r.total_tokens), formatUsd(r.cost_usd),
    ];
    io.out(`Usage for ${month} (UTC), by ${by}\n`);
    io.out(
      formatTable(
        [by.toUpperCase(), 'REQUESTS', 'ERRORS', 'PROMPT', 'CACHE READ', 'CACHE WRITE', 'COMPLETION', 'REASONING', 'TOTAL', 'COST'],
        [...summary.rows.map((r) => cells(label(r.group), r)), cells('TOTAL', total)],
      ),
    );
    return 0;
  } finally {
    await connection.close();
  }
}

/** `--by session`: the month's sessions (one per key and id: a session is its key's), most recently active first, each agent indented under its parent. */
async function printSessions(management: Management, month: string, json: boolean, io: CliIo): Promise<number> {
  const { from, to } = monthRange(month);
  const page = await management.usageSessions({ from: new Date(from).toISOString().slice(0, 10), to: new Date(to - 1).toISOString().slice(0, 10), limit: 500 });
  if (json) {
    io.out(`${JSON.stringify({ month, ...page }, null, 2)}\n`);
    return 0;
  }
  if (page.data.length === 0) {
    io.out(`No sessions in ${month}: requests name one with X-Patchbay-Session, or Claude Code's and Codex's own ids.\n`);
    return 0;
  }
  const sums = (r: SessionAgent | (typeof page.data)[number]) => [
    String(r.requests), String(r.prompt_tokens), String(r.cache_read_tokens), String(r.cache_write_tokens), String(r.completion_tokens), `$${r.cost_usd.toFixed(4)}`, `$${r.cache_saved_usd.toFixed(4)}`,
  ];
  const rows: string[][] = [];
  const addAgents = (agents: SessionAgent[], depth: number) => {
    for (const agent of agents) {
      rows.push([`${'  '.repeat(depth)}↳ ${agent.agent_id}`, '', '', agent.last_ts.slice(0, 16).replace('T', ' '), '', ...sums(agent)]);
      addAgents(agent.subagents, depth + 1);
    }
  };
  for (const s of page.data) {
    rows.push([s.session_id, s.key_name ?? s.key_id ?? 'no key', s.client, s.last_ts.slice(0, 16).replace('T', ' '), s.models.join(','), ...sums(s)]);
    addAgents(s.agents, 1);
  }
  io.out(`Sessions in ${month} (UTC), most recently active first${page.next_cursor ? ' (the 500 latest)' : ''}\n`);
  io.out(formatTable(['SESSION', 'KEY', 'CLIENT', 'LAST (UTC)', 'MODELS', 'REQUESTS', 'PROMPT', 'CACHE READ', 'CACHE WRITE', 'COMPLETION', 'COST', 'CACHE SAVED'], rows));
  return 0;
}
