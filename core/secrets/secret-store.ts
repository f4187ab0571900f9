import type { ResolvedProvider } from '../config/load-config.ts';

/** Where provider secrets come from, as routing sees it. The request path reads them synchronously from memory. */
export interface SecretStore {
  get(provider: ResolvedProvider): string | undefined;
  /** Where a secret for this provider would come from, for messages that say what to fix. */
  describeSource(provider: ResolvedProvider): string;
}
