/**
 * What a usage group is called on the page. Requests without a provider were refused before any
 * provider was tried (no eligible provider, a key's cap or rate limit): they are named so, not
 * "(none)". Keys go by their name; a key id only when the key is gone.
 */
export const NOT_ROUTED = 'refused before routing';

export function groupLabel(group: string | null, groupBy: 'model' | 'provider' | 'key', keyName: string | null = null): string {
  if (groupBy === 'key') return group === null ? 'no key (admin)' : (keyName ?? `deleted key ${group}`);
  return group ?? NOT_ROUTED;
}
