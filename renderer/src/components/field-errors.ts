import type { z } from 'zod';
import { ApiError } from '../api/api-error.ts';

export type FieldErrors = Record<string, string>;

/** A zod result's issues by top-level field name, first message each: what a form shows next to its inputs. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : '_form';
    errors[field] ??= issue.message;
  }
  return errors;
}

/** The server's 400 names the field in `param` (e.g. "monthly_usd_cap" or "weights.cost"); show it there. */
export function fieldErrorsFromApi(error: unknown): FieldErrors {
  if (error instanceof ApiError && error.param) return { [error.param.split(/[.[]/)[0]]: error.message };
  if (error instanceof Error) return { _form: error.message };
  return {};
}
