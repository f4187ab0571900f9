import { z } from 'zod';

/**
 * How pydantic's genai-prices table says which model ids one of its entries covers (its
 * `MatchLogic`): Patchbay uses the same rules, so a dated snapshot id a provider lists
 * (claude-opus-4-5-20251101, gpt-5.1-2025-11-13) is priced as the table prices it.
 */
export type MatchLogic =
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string }
  | { or: MatchLogic[] }
  | { and: MatchLogic[] };

export const matchLogicSchema: z.ZodType<MatchLogic> = z.lazy(() =>
  z.union([
    z.strictObject({ equals: z.string() }),
    z.strictObject({ starts_with: z.string() }),
    z.strictObject({ ends_with: z.string() }),
    z.strictObject({ contains: z.string() }),
    z.strictObject({ regex: z.string().refine(compiles, 'is not a regular expression') }),
    z.strictObject({ or: z.array(matchLogicSchema) }),
    z.strictObject({ and: z.array(matchLogicSchema) }),
  ]),
);

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** True when the rule covers the id; case-insensitive, as genai-prices compares (it lowercases the id first). */
export function matchesModelId(rule: MatchLogic, id: string): boolean {
  if ('or' in rule) return rule.or.some((r) => matchesModelId(r, id));
  if ('and' in rule) return rule.and.every((r) => matchesModelId(r, id));
  const lower = id.toLowerCase();
  if ('equals' in rule) return lower === rule.equals.toLowerCase();
  if ('starts_with' in rule) return lower.startsWith(rule.starts_with.toLowerCase());
  if ('ends_with' in rule) return lower.endsWith(rule.ends_with.toLowerCase());
  if ('contains' in rule) return lower.includes(rule.contains.toLowerCase());
  return regexFor(rule.regex).test(lower);
}

const compiled = new Map<string, RegExp>();
function regexFor(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) compiled.set(pattern, (regex = new RegExp(pattern)));
  return regex;
}

/** The exact ids a rule names (its `equals` clauses outside an `and`), for listing aliases it declares. */
export function namedIds(rule: MatchLogic): string[] {
  if ('or' in rule) return rule.or.flatMap(namedIds);
  return 'equals' in rule ? [rule.equals] : [];
}
