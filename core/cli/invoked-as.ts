import type { CliIo } from './cli-io.ts';

/**
 * How the user ran Patchbay, so hints name a command they have: a clone has no `patchbay` on its
 * PATH (`npm run patchbay -- …` there; `npm start` runs serve the same way), `npx patchbay …` runs
 * the package without installing it, and only an installed package answers to `patchbay`.
 * PATCHBAY_INVOKED_AS overrides (a wrapper script).
 */
export function invokedAs(env: NodeJS.ProcessEnv): string {
  if (env.PATCHBAY_INVOKED_AS) return env.PATCHBAY_INVOKED_AS;
  const script = env.npm_lifecycle_event;
  if (script === 'patchbay' || script === 'start') return 'npm run patchbay --';
  if (env.npm_command === 'exec') return 'npx patchbay';
  return 'patchbay';
}

/** `patchbay keys list` in a message becomes the command as the user runs it ("npm run patchbay -- keys list"). */
export function nameCommand(text: string, command: string): string {
  if (command === 'patchbay') return text;
  return text.replace(/(^|[\s"'`(])patchbay (?=[a-z-])/g, `$1${command} `);
}

/** The CLI's output with every hint naming the command as the user ran it. */
export function withCommandName(io: CliIo): CliIo {
  const command = invokedAs(io.env);
  if (command === 'patchbay') return io;
  return { ...io, out: (text) => io.out(nameCommand(text, command)), err: (text) => io.err(nameCommand(text, command)) };
}
