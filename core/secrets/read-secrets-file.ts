import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../config/load-config.ts';
import { rememberSecret } from '../errors/redact-secrets.ts';

/** Why a secrets file cannot be used: Patchbay does not start, and the message says how to fix it. */
export class SecretsFileError extends ConfigError {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A server's provider secrets (`patchbay serve --secrets-file PATH`, PATCHBAY_SECRETS_FILE): lines of
 * `NAME=value` with the environment variables' names (OPENAI_API_KEY=sk-...), `#` comments and blank
 * lines ignored, an optional `export ` before the name, a value optionally in single or double
 * quotes (taken as written, no escapes). The file must belong to the user Patchbay runs as and be
 * readable by its owner only (mode 600 or 400); reached through a symlink, the link's folder and
 * the file's folder must be writable by that user (or root) only: otherwise Patchbay refuses to
 * start, saying why in one line. The secrets stay in the process's memory (never in the database)
 * and join the redaction list at once.
 */
export function readSecretsFile(path: string): Record<string, string> {
  const text = readOwnFile(path);
  const secrets: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
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

/** The running user's id (no uid on Windows, where ownership is not checked). */
function runningUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/**
 * Whether a user other than the running one (or root) can add, remove or swap entries of a folder:
 * another owner, or a group or other write bit (a sticky /tmp included: whoever planted a link there owns it).
 */
function othersCanWrite(folder: string, uid: number): boolean {
  const stat = statSync(folder);
  return (stat.uid !== uid && stat.uid !== 0) || (stat.mode & 0o022) !== 0;
}

/**
 * The file's text, read only when the file is the running user's own: checked on the open file
 * itself (fstat), so a file swapped between the check and the read is never the one read, and
 * through a symlink only when nobody else can have placed the link or the file it leads to.
 */
function readOwnFile(path: string): string {
  const uid = runningUid();
  let opened = path;
  let fd: number;
  try {
    if (uid !== null && lstatSync(path).isSymbolicLink()) {
      const linkFolder = dirname(path);
      if (othersCanWrite(linkFolder, uid)) throw refusal(path, `is a link in ${linkFolder}, a folder other users can write`, `keep the link (or the file itself) in a folder only the service user can write`);
      const target = realpathSync(path);
      const targetFolder = dirname(target);
      if (othersCanWrite(targetFolder, uid)) throw refusal(path, `leads to ${target}, in ${targetFolder}, a folder other users can write`, `move the file to a folder only the service user can write`);
      opened = target;
    }
    // O_NOFOLLOW: the path checked above is the path opened (a link swapped in meanwhile fails the open).
    fd = openSync(opened, constants.O_RDONLY | (uid !== null ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    if (error instanceof SecretsFileError) throw error;
    throw new SecretsFileError(`Cannot read the secrets file ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SecretsFileError(`The secrets file ${path} is not a file.`);
    const mode = stat.mode & 0o777;
    if (uid !== null && stat.uid !== uid) {
      throw refusal(path, `belongs to another user (uid ${stat.uid}), not to the user Patchbay runs as (uid ${uid})`, `make it the service user's own: chown ${uid} ${opened}`);
    }
    if (mode & 0o077) {
      throw refusal(path, `can be read or changed by other users (mode ${mode.toString(8).padStart(3, '0')})`, `make it readable by the service user only: chmod 600 ${opened}`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function refusal(path: string, problem: string, fix: string): SecretsFileError {
  return new SecretsFileError(`The secrets file ${path} ${problem}; Patchbay does not start with it. ${fix[0].toUpperCase()}${fix.slice(1)}`);
}
