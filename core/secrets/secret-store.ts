import type { ResolvedProvider } from '../config/load-config.ts';
import type { KeyRing } from './key-ring.ts';

/** Where provider secrets come from, as routing sees it. The request path reads them synchronously from memory. */
export interface SecretStore {
  /** The secret to send to the provider's current base URL, or undefined (none, or withheld because the URL moved). */
  get(provider: ResolvedProvider): string | undefined;
  /** Where a secret for this provider would come from, or why it is withheld: for messages that say what to fix. */
  describeSource(provider: ResolvedProvider): string;
  /** Why the provider's secret is not sent (its base URL moved to another origin), or null. */
  withheldReason(provider: ResolvedProvider): string | null;
  /** The provider's keys as one attempt uses them (several labelled keys, resting); absent: `get`'s one key. */
  keyRing?(provider: ResolvedProvider): KeyRing;
}
