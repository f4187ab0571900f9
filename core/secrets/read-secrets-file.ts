import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../config/load-config.ts';
import { rememberSecret } from '../errors/redact-secrets.ts';

/** Why a secrets file cannot be used: Patchbay does not start, and the message says how to fix it. */
export class SecretsFileError extends ConfigError {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A server's provider secrets (`patchbay serve --secrets-file PATH`, PATCHBAY_SECRETS_FILE): lines of
 * `NAME=value` with the environment variables' names (OPENAI_API_KEY=sk-...), `#` comments and blank
 * lines ignored, an optional `export ` before the name, a value optionally in single or double
 * quotes (taken as written, no escapes). The file must be readable by its owner only (mode 600 or
 * 400): with any group or other permission bit set, Patchbay refuses to start. The secrets stay in
 * the process's memory (never in the database) and join the redaction list at once.
 */
export function readSecretsFile(path: string): Record<string, string> {
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new SecretsFileError(`The secrets file ${path} is not a file.`);
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof SecretsFileError) throw error;
    throw new SecretsFileError(`Cannot read the secrets file ${path}: ${(error as Error).message}`);
  }
  if (mode & 0o077) {
    throw new SecretsFileError(
      `The secrets file ${path} can be read or changed by other users (mode ${mode.toString(8).padStart(3, '0')}); Patchbay does not start with it. ` +
        `Make it readable by the service user only: chmod 600 ${path}`,
    );
  }
  const secrets: Record<string, string> = {};
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const equals = line.indexOf('=');
    const name = (equals < 0 ? line : line.slice(0, equals)).replace(/^export\s+/, '').trim();
    // The value is never quoted back: a malformed line may hold a secret.
    if (equals < 0 || !NAME.test(name)) {
      throw new SecretsFileError(`The secrets file ${path}, line ${index + 1}: expected NAME=value (e.g. OPENAI_API_KEY=sk-...).`);
    }
    let value = line.slice(equals + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) value = value.slice(1, -1);
    rememberSecret(value);
    secrets[name] = value;
  });
  return secrets;
}
