import { Entry, findCredentials } from '@napi-rs/keyring';
import { BUILTIN_PROVIDERS } from '../config/builtin-providers.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { rememberSecret } from '../errors/redact-secrets.ts';
import { secretOrigin } from './secret-origin.ts';
import type { SecretStore } from './secret-store.ts';
import { KeyHealth, type KeyRing, type ProviderKey } from './key-ring.ts';

export type SecretSource = 'env' | 'keychain' | 'none';

/** The unlabelled key's label: the key `providers set-key NAME` sets, or the environment variable's. */
export const DEFAULT_KEY_LABEL = 'default';

/** A keychain secret and the origin it was set for (null: set before origins were kept, see `parseEntry`). */
interface StoredSecret {
  secret: string;
  origin: string | null;
}

/** One key of a provider as its current base URL sees it. */
export interface ResolvedKey {
  label: string;
  source: 'env' | 'keychain';
  /** Undefined when withheld. */
  secret: string | undefined;
  /** Why it is not sent (the base URL moved to another origin since it was set), or null. */
  withheld: string | null;
}

/** What the store answers for one provider at one base URL; recomputed only when the base URL or a secret changes. */
interface Resolved {
  baseUrl: string;
  /** Every key: the default first, then the labelled ones by label. */
  keys: ResolvedKey[];
  /** The keys that may be sent, in the same order. */
  usable: ProviderKey[];
  /** Where the default key comes from (a provider with labelled keys only: keychain). */
  source: SecretSource;
  /** Why no key is sent although keys exist, or null. */
  withheld: string | null;
}

/**
 * Provider secrets in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret
 * Service on Linux) through @napi-rs/keyring, under one service name: the unlabelled key as the
 * entry named after the provider (as it always was), a labelled key as `provider#label`.
 * Environment variables override the unlabelled keychain key, for headless use; labelled keys
 * live in the keychain only. Secrets are read once at start into memory, so the request path
 * never calls the keychain.
 *
 * Each secret is bound to the origin (scheme, host, port) it was set for, and is sent only there:
 * moving a provider's base URL to another host withholds its secret until it is set again, so
 * whoever can edit the base URL cannot make Patchbay send the key elsewhere. The keychain entry
 * holds `{"secret", "origin"}` as JSON: the binding lives beside the secret, where editing the
 * config file cannot change it. An environment variable is bound to the origin the provider had
 * when Patchbay first used it (the config it was started with).
 */
export class KeychainSecretStore implements SecretStore {
  /** A plain copy: reading process.env goes through a slow native lookup on every access. */
  private readonly env: Record<string, string | undefined>;
  private readonly service: string;
  /** provider -> label -> stored secret. */
  private readonly secrets = new Map<string, Map<string, StoredSecret>>();
  /** Origins of environment secrets (and of unbound keychain secrets), fixed the first time a provider is resolved. */
  private readonly pinned = new Map<string, string>();
  private readonly resolved = new Map<string, Resolved>();
  /** One ring per provider object (a provider removed and added again is a new object, with its own base URL). */
  private readonly rings = new WeakMap<ResolvedProvider, KeyRing>();
  /** Which key rests and why, per provider and label (in memory: a restart starts every key afresh). */
  readonly health = new KeyHealth();
  /** Why the keychain cannot be used, or null when it can. */
  readonly unavailableReason: string | null;

  /** Why the keychain is not used at all (a team's replica, a secrets file), or null. */
  private readonly notUsed: string | null;

  /**
   * `options.keychain: false`: provider secrets come from the environment (and a secrets file merged
   * into it) only, and the keychain is never opened: a service has no desktop session, and a
   * second place for secrets would be one more to leak from and to forget.
   */
  constructor(env: NodeJS.ProcessEnv, service = 'patchbay', options: { keychain?: false; why?: string } = {}) {
    this.env = { ...env };
    this.service = service;
    this.notUsed = options.keychain === false ? (options.why ?? 'This Patchbay takes provider secrets from its environment only, not from a keychain.') : null;
    if (this.notUsed) {
      this.unavailableReason = this.notUsed;
      return;
    }
    let reason: string | null = null;
    try {
      for (const credential of findCredentials(service)) {
        const { provider, label } = parseAccount(credential.account);
        const stored = parseEntry(provider, credential.password);
        rememberSecret(stored.secret);
        this.labelsOf(provider).set(label, stored);
      }
    } catch (error) {
      reason = (error as Error).message;
    }
    this.unavailableReason = reason;
  }

  get available(): boolean {
    return this.unavailableReason === null;
  }

  /** One line for the log when there is no keychain. */
  unavailableNotice(): string | null {
    if (this.notUsed) return null;
    return this.available
      ? null
      : 'No OS keychain is available here (no Secret Service is running), so provider keys come from environment variables only (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).';
  }

  /** The first key that may be sent (in the provider's key order), or undefined. */
  get(provider: ResolvedProvider): string | undefined {
    return this.resolve(provider).usable[0]?.secret;
  }

  /** Every key the provider has, by label, withheld ones included (never for display: views take labels and states only). */
  keys(provider: ResolvedProvider): readonly ResolvedKey[] {
    return this.resolve(provider).keys;
  }

  /** The provider's keys as requests use them: order (or spread), resting, health. */
  keyRing(provider: ResolvedProvider): KeyRing {
    let ring = this.rings.get(provider);
    if (!ring) {
      ring = this.health.ring(provider.name, () => this.resolve(provider).usable, () => provider.keyOrder);
      this.rings.set(provider, ring);
    }
    return ring;
  }

  source(provider: ResolvedProvider): SecretSource {
    return this.resolve(provider).source;
  }

  /** Why the provider's secret is not sent to its current base URL, or null when it is (or there is none). */
  withheldReason(provider: ResolvedProvider): string | null {
    return this.resolve(provider).withheld;
  }

  describeSource(provider: ResolvedProvider): string {
    const withheld = this.resolve(provider).withheld;
    if (withheld) return withheld;
    const env = provider.apiKeyEnv ? ` or set ${provider.apiKeyEnv}` : '';
    return this.available ? `run "patchbay providers set-key ${provider.name}"${env}` : `set ${provider.apiKeyEnv ?? `providers.${provider.name}.apiKeyEnv`}`;
  }

  /**
   * Fixes the origins of the provider's secrets at its current base URL, if not fixed yet. Called
   * before the base URL changes, so a secret Patchbay has not used yet stays bound to where it was.
   */
  pin(provider: ResolvedProvider): void {
    this.resolve(provider);
  }

  /** Stores the secret under the label, bound to the provider's current origin (setting it again is how a moved provider gets its key back). */
  set(provider: ResolvedProvider, secret: string, label = DEFAULT_KEY_LABEL): void {
    this.requireKeychain();
    const stored = { secret, origin: secretOrigin(provider.baseUrl) };
    new Entry(this.service, accountOf(provider.name, label)).setPassword(JSON.stringify(stored));
    rememberSecret(secret);
    this.labelsOf(provider.name).set(label, stored);
    // The environment's secret keeps its own binding: the key set here is for this origin, that one was not.
    this.resolved.delete(provider.name);
  }

  /** Returns whether there was a secret under the label to delete. */
  delete(providerName: string, label = DEFAULT_KEY_LABEL): boolean {
    this.requireKeychain();
    const existed = new Entry(this.service, accountOf(providerName, label)).deletePassword();
    this.secrets.get(providerName)?.delete(label);
    this.resolved.delete(providerName);
    return existed;
  }

  /** Deletes every keychain key of the provider (a removed provider). */
  deleteAll(providerName: string): void {
    for (const label of [...(this.secrets.get(providerName)?.keys() ?? [])]) this.delete(providerName, label);
  }

  private labelsOf(provider: string): Map<string, StoredSecret> {
    let labels = this.secrets.get(provider);
    if (!labels) {
      labels = new Map();
      this.secrets.set(provider, labels);
    }
    return labels;
  }

  /** The answer for the provider's current base URL: cached, so the request path pays one lookup and one comparison. */
  private resolve(provider: ResolvedProvider): Resolved {
    const cached = this.resolved.get(provider.name);
    if (cached && cached.baseUrl === provider.baseUrl) return cached;
    const origin = secretOrigin(provider.baseUrl);
    const pinned = this.pinned.get(provider.name) ?? origin;
    this.pinned.set(provider.name, pinned);
    const fromEnv = provider.apiKeyEnv ? this.env[provider.apiKeyEnv] || undefined : undefined;
    const labels = this.secrets.get(provider.name) ?? new Map<string, StoredSecret>();
    const stored = labels.get(DEFAULT_KEY_LABEL);
    rememberSecret(fromEnv);
    const moved = `${provider.name}'s base URL moved to ${origin}`;
    const keys: ResolvedKey[] = [];
    let source: SecretSource = 'none';
    if (fromEnv && pinned === origin) {
      keys.push({ label: DEFAULT_KEY_LABEL, source: 'env', secret: fromEnv, withheld: null });
      source = 'env';
    } else if (stored && (stored.origin ?? pinned) === origin) {
      keys.push({ label: DEFAULT_KEY_LABEL, source: 'keychain', secret: stored.secret, withheld: null });
      source = 'keychain';
    } else if (fromEnv || stored) {
      const how = fromEnv && !stored ? `set it again (patchbay providers set-key ${provider.name}), or restart Patchbay with this base URL to use ${provider.apiKeyEnv}` : `you set it again (patchbay providers set-key ${provider.name})`;
      source = fromEnv ? 'env' : 'keychain';
      keys.push({ label: DEFAULT_KEY_LABEL, source, secret: undefined, withheld: `${moved}; its key is withheld until ${how}` });
    }
    for (const label of [...labels.keys()].filter((l) => l !== DEFAULT_KEY_LABEL).sort()) {
      const entry = labels.get(label)!;
      const sendable = (entry.origin ?? pinned) === origin;
      keys.push({
        label,
        source: 'keychain',
        secret: sendable ? entry.secret : undefined,
        withheld: sendable ? null : `${moved}; its key "${label}" is withheld until you set it again (patchbay providers set-key ${provider.name} --label ${label})`,
      });
      if (source === 'none') source = 'keychain';
    }
    const usable = keys.filter((k) => k.secret !== undefined).map((k) => ({ label: k.label, secret: k.secret! }));
    const withheld = usable.length === 0 ? (keys.find((k) => k.withheld)?.withheld ?? null) : null;
    const result: Resolved = { baseUrl: provider.baseUrl, keys, usable, source, withheld };
    this.resolved.set(provider.name, result);
    return result;
  }

  private requireKeychain(): void {
    if (!this.available) {
      throw new PatchbayError(this.notUsed ?? `${this.unavailableNotice()} Set the provider's environment variable instead.`, {
        status: 503,
        type: 'server_error',
        code: 'keychain_unavailable',
      });
    }
  }
}

/** The keychain account of a provider's key: the provider's name for the unlabelled key (as before labels existed), `name#label` otherwise. */
function accountOf(provider: string, label: string): string {
  return label === DEFAULT_KEY_LABEL ? provider : `${provider}#${label}`;
}

function parseAccount(account: string): { provider: string; label: string } {
  const at = account.indexOf('#');
  return at === -1 ? { provider: account, label: DEFAULT_KEY_LABEL } : { provider: account.slice(0, at), label: account.slice(at + 1) };
}

/**
 * A keychain entry: `{"secret", "origin"}`, or a bare secret stored before origins were kept. A
 * bare secret of a built-in provider counts as set for that provider's default URL, so existing
 * setups keep working; one of a user-defined provider is bound where the provider first points.
 */
function parseEntry(account: string, password: string): StoredSecret {
  if (password.startsWith('{')) {
    try {
      const parsed = JSON.parse(password) as { secret?: unknown; origin?: unknown };
      if (typeof parsed.secret === 'string' && typeof parsed.origin === 'string') return { secret: parsed.secret, origin: parsed.origin };
    } catch {
      // Not ours: a secret that happens to start with a brace.
    }
  }
  const builtin = BUILTIN_PROVIDERS[account];
  return { secret: password, origin: builtin ? secretOrigin(builtin.baseUrl) : null };
}
