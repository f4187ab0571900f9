/** A mistake in the command line, told in one line. */
export class UsageError extends Error {}
