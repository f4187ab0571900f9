import { parseArgs } from 'node:util';

export const commonOptions = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export interface ParsedCommand {
  values: Record<string, string | boolean | undefined> & { 'data-dir'?: string; config?: string };
  positionals: string[];
}

/** Parses a command's flags strictly: an unknown flag is an error that names it. */
export function parseCommand(args: string[], options: OptionSpec): ParsedCommand {
  const parsed = parseArgs({ args, options: { ...commonOptions, ...options }, allowPositionals: true, strict: true });
  return { values: parsed.values as ParsedCommand['values'], positionals: parsed.positionals };
}
