import { Entry, findCredentials } from '@napi-rs/keyring';
import { BUILTIN_PROVIDERS } from '../config/builtin-providers.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { rememberSecret } from './redact-secrets.ts';
import { secretOrigin } from './secret-origin.ts';
import type { SecretStore } from './secret-store.ts';

export type SecretSource = 'env' | 'keychain' | 'none';

/** A keychain secret and the origin it was set for (null: set before origins were kept, see `parseEntry`). */
interface StoredSecret {
  secret: string;
  origin: string | null;
}

/** What the store answers for one provider at one base URL; recomputed only when the base URL or a secret changes. */
interface Resolved {
  baseUrl: string;
  secret: string | undefined;
  source: SecretSource;
  /** Why a secret exists but is not sent, or null. */
  withheld: string | null;
}

/**
 * Provider secrets in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret
 * Service on Linux) through @napi-rs/keyring, one entry per provider under one service name.
 * Environment variables override the keychain, for headless use. Secrets are read once at start
 * into memory, so the request path never calls the keychain.
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
  private readonly secrets = new Map<string, StoredSecret>();
  /** Origins of environment secrets (and of unbound keychain secrets), fixed the first time a provider is resolved. */
  private readonly pinned = new Map<string, string>();
  private readonly resolved = new Map<string, Resolved>();
  /** Why the keychain cannot be used, or null when it can. */
  readonly unavailableReason: string | null;

  constructor(env: NodeJS.ProcessEnv, service = 'patchbay') {
    this.env = { ...env };
    this.service = service;
    let reason: string | null = null;
    try {
      for (const credential of findCredentials(service)) {
        const stored = parseEntry(credential.account, credential.password);
        rememberSecret(stored.secret);
        this.secrets.set(credential.account, stored);
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
    return this.available
      ? null
      : 'No OS keychain is available here (no Secret Service is running), so provider keys come from environment variables only (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).';
  }

  get(provider: ResolvedProvider): string | undefined {
    return this.resolve(provider).secret;
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

  /** Stores the secret bound to the provider's current origin (setting it again is how a moved provider gets its key back). */
  set(provider: ResolvedProvider, secret: string): void {
    this.requireKeychain();
    const stored = { secret, origin: secretOrigin(provider.baseUrl) };
    new Entry(this.service, provider.name).setPassword(JSON.stringify(stored));
    rememberSecret(secret);
    this.secrets.set(provider.name, stored);
    // The environment's secret keeps its own binding: the key set here is for this origin, that one was not.
    this.resolved.delete(provider.name);
  }

  /** Returns whether there was a secret to delete. */
  delete(providerName: string): boolean {
    this.requireKeychain();
    const existed = new Entry(this.service, providerName).deletePassword();
    this.secrets.delete(providerName);
    this.resolved.delete(providerName);
    return existed;
  }

  /** The answer for the provider's current base URL: cached, so the request path pays one lookup and one comparison. */
  private resolve(provider: ResolvedProvider): Resolved {
    const cached = this.resolved.get(provider.name);
    if (cached && cached.baseUrl === provider.baseUrl) return cached;
    const origin = secretOrigin(provider.baseUrl);
    const pinned = this.pinned.get(provider.name) ?? origin;
    this.pinned.set(provider.name, pinned);
    const fromEnv = provider.apiKeyEnv ? this.env[provider.apiKeyEnv] || undefined : undefined;
    const stored = this.secrets.get(provider.name);
    rememberSecret(fromEnv);
    let result: Resolved;
    if (fromEnv && pinned === origin) result = { baseUrl: provider.baseUrl, secret: fromEnv, source: 'env', withheld: null };
    else if (stored && (stored.origin ?? pinned) === origin) result = { baseUrl: provider.baseUrl, secret: stored.secret, source: 'keychain', withheld: null };
    else if (fromEnv || stored) {
      const how = fromEnv && !stored ? `set it again (patchbay providers set-key ${provider.name}), or restart Patchbay with this base URL to use ${provider.apiKeyEnv}` : `you set it again (patchbay providers set-key ${provider.name})`;
      result = {
        baseUrl: provider.baseUrl,
        secret: undefined,
        source: fromEnv ? 'env' : 'keychain',
        withheld: `${provider.name}'s base URL moved to ${origin}; its key is withheld until ${how}`,
      };
    } else result = { baseUrl: provider.baseUrl, secret: undefined, source: 'none', withheld: null };
    this.resolved.set(provider.name, result);
    return result;
  }

  private requireKeychain(): void {
    if (!this.available) {
      throw new PatchbayError(`${this.unavailableNotice()} Set the provider's environment variable instead.`, {
        status: 503,
        type: 'server_error',
        code: 'keychain_unavailable',
      });
    }
  }
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
