/** Where a CLI command writes and reads: the process's streams, or a test's own. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Standard input as text (providers set-key reads the secret there); tests pass their own. */
  stdin?: () => Promise<string>;
}
