import type { SessionRow } from '../../api/types.ts';
import { formatUsd } from '../../format/format-numbers.ts';

type ClassSums = NonNullable<SessionRow['classes']>[number];

/** Claude Code's request classes (x-claude-code-request-class) as the Sessions page names them. */
export const CLASS_NAMES: Record<string, string> = {
  main: 'main turns',
  subagent: 'subagents',
  workflow: 'workflows',
  compaction: 'compactions',
  auxiliary: 'background calls',
  side_reply: 'side replies',
};

export const className = (requestClass: string | null): string => (requestClass === null ? 'not said' : (CLASS_NAMES[requestClass] ?? requestClass));

/**
 * A session's cost per request class in a line (the costliest first, at most `shown` of them), or
 * null when its client said nothing of what its requests were for.
 */
export function classCostLine(classes: readonly ClassSums[] | undefined, shown = 2): string | null {
  if (!classes || classes.every((c) => c.request_class === null)) return null;
  const parts = classes.slice(0, shown).map((c) => `${className(c.request_class)} ${formatUsd(c.cost_usd)}`);
  return classes.length > shown ? `${parts.join(', ')}, +${classes.length - shown} more` : parts.join(', ');
}
