import { currentMonth, monthRange } from '../usage/usage-store.ts';
import { formatTable } from './keys-command.ts';
import { openData } from './open-data.ts';
import { parseCommand, UsageError, type CliIo } from './run-cli.ts';

export function runUsageCommand(args: string[], io: CliIo): number {
  const { values } = parseCommand(args, { month: { type: 'string' }, json: { type: 'boolean' } });
  const month = (values.month as string | undefined) ?? currentMonth();
  let range: { from: number; to: number };
  try {
    range = monthRange(month);
  } catch (error) {
    throw new UsageError(`--month: ${(error as Error).message}`);
  }
  const { db, usage } = openData(values, io.env);
  try {
    const rows = usage.totalsByModel(range.from, range.to);
    const total = rows.reduce(
      (sum, r) => ({
        requests: sum.requests + r.requests,
        errors: sum.errors + r.errors,
        prompt_tokens: sum.prompt_tokens + r.prompt_tokens,
        completion_tokens: sum.completion_tokens + r.completion_tokens,
        total_tokens: sum.total_tokens + r.total_tokens,
        cost_usd: sum.cost_usd + r.cost_usd,
      }),
      { requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0 },
    );
    if (values.json) {
      io.out(`${JSON.stringify({ month, byModel: rows, total }, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      io.out(`No requests recorded in ${month}.\n`);
      return 0;
    }
    const fmt = (r: typeof total & { provider?: string | null; model?: string | null }, label?: string) => [
      label ?? r.provider ?? '(none)',
      label ? '' : (r.model ?? '(none)'),
      String(r.requests),
      String(r.errors),
      String(r.prompt_tokens),
      String(r.completion_tokens),
      String(r.total_tokens),
      `$${r.cost_usd.toFixed(4)}`,
    ];
    io.out(`Usage for ${month} (UTC)\n`);
    io.out(formatTable(['PROVIDER', 'MODEL', 'REQUESTS', 'ERRORS', 'PROMPT', 'COMPLETION', 'TOTAL', 'COST'], [...rows.map((r) => fmt(r)), fmt(total, 'TOTAL')]));
    return 0;
  } finally {
    db.close();
  }
}
