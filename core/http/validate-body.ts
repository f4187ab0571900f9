import type { z } from 'zod';
import { InvalidRequestError } from '../errors/patchbay-error.ts';

/** `messages[0].content` from zod's path, as OpenAI names parameters. */
export function formatParam(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined ? 'is required' : `must be ${article(issue.expected)}, not ${typeName(value)}`;
    case 'too_big':
      return issue.origin === 'array' ? `must have at most ${issue.maximum} items` : issue.origin === 'string' ? `must be at most ${issue.maximum} characters` : `must be at most ${issue.maximum}`;
    case 'too_small':
      if (issue.message && !issue.message.startsWith('Too small')) return issue.message;
      return issue.origin === 'array' ? `must have at least ${issue.minimum} item(s)` : issue.origin === 'string' ? `must not be empty` : `must be at least ${issue.minimum}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(value)}`;
    case 'invalid_union': {
      const discriminator = (issue as { discriminator?: string }).discriminator;
      if (discriminator) return `must be one of ${DISCRIMINATOR_VALUES[discriminator] ?? 'the supported values'}, not ${JSON.stringify(value)}`;
      if (value === undefined) return 'is required';
      // The types the union takes, from its branches that refused the value's type outright (input: a string or an array).
      const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
      const expected = [...new Set(branches.flatMap((branch) => (branch.length === 1 && branch[0].code === 'invalid_type' && branch[0].path.length === 0 ? [branch[0].expected] : [])))];
      return expected.length > 0 ? `must be ${expected.map(article).join(' or ')}, not ${typeName(value)}` : `has the wrong type (${typeName(value)})`;
    }
    default:
      return issue.message;
  }
}

const DISCRIMINATOR_VALUES: Record<string, string> = {
  role: 'system, developer, user, assistant, tool',
  type: 'text, image_url, input_audio, file, refusal',
};

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Validates a parsed body; the 400 names the first offending field and says what is wrong with it. */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestError('The request body must be a JSON object.', null);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const { issue, path } = explain(pickIssue(result.error.issues), []);
  const param = formatParam(path);
  const value = valueAt(body, path);
  throw new InvalidRequestError(`Invalid '${param}': ${describeIssue(issue, value)}.`, param || null);
}

/** Finds the most specific issue, descending into the union option that got furthest. */
function explain(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union') return { issue, path };
  const discriminator = (issue as { discriminator?: string }).discriminator;
  if (discriminator) return { issue, path: path[path.length - 1] === discriminator ? path : [...path, discriminator] };
  // Options rejected for their type at the root say nothing useful; an option that got further does.
  const candidates = issue.errors
    .flat()
    .filter((nested) => nested.path.length > 0 || (nested.code !== 'invalid_type' && nested.code !== 'invalid_union'));
  if (candidates.length === 0) return { issue, path };
  return explain(pickIssue(candidates), path);
}

/** The deepest issue is the most specific one. */
function pickIssue(issues: z.core.$ZodIssue[]): z.core.$ZodIssue {
  let best = issues[0];
  for (const issue of issues) if (issue.path.length > best.path.length) best = issue;
  return best;
}
