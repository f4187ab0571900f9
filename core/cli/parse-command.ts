import { resolve } from 'node:path';
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
  const values = parsed.values as ParsedCommand['values'];
  // Made absolute from where the user stands: the data dir names a server (server.json, the lock,
  // the agents' keys in the keychain) and must mean the same folder to every command.
  if (values['data-dir']) values['data-dir'] = resolve(values['data-dir']);
  if (values.config) values.config = resolve(values.config);
  return { values, positionals: parsed.positionals };
}
