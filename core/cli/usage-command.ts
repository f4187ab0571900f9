import { currentMonth, monthRange, USAGE_GROUPS as GROUPS } from '../usage/usage-store.ts';
import { connectManagement } from './connect-management.ts';
import { formatTable } from './format-table.ts';
import { formatUsd } from './format-usd.ts';
import { parseCommand, UsageError, type CliIo } from './run-cli.ts';


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
    const summary = await connection.management.usageSummary(month, by as (typeof GROUPS)[number]);
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
    if (values.json) {
      io.out(`${JSON.stringify({ ...summary, total }, null, 2)}\n`);
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
        [...summary.rows.map((r) => cells(r.group ?? (by === 'key' ? 'no key' : 'refused before routing'), r)), cells('TOTAL', total)],
      ),
    );
    return 0;
  } finally {
    await connection.close();
  }
}
