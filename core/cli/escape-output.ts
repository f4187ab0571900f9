import { escapeControls } from '../errors/escape-controls.ts';
import type { CliIo } from './cli-io.ts';

/**
 * The CLI's output with control characters escaped. Everything it prints that it did not write
 * itself (session and agent ids, key and model names, a provider's error message) came from a
 * client, a provider or the database, and the CLI itself prints no escape sequences: so one escape
 * here covers every command, and a stored value can never drive the user's terminal.
 */
export function withEscapedControls(io: CliIo): CliIo {
  return { ...io, out: (text) => io.out(escapeControls(text)), err: (text) => io.err(escapeControls(text)) };
}
