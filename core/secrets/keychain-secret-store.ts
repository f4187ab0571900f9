import { Entry, findCredentials } from '@napi-rs/keyring';
import type { ResolvedProvider } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import type { SecretStore } from './secret-store.ts';

export type SecretSource = 'env' | 'keychain' | 'none';

/**
 * Provider secrets in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret
 * Service on Linux) through @napi-rs/keyring, one entry per provider under one service name.
 * Environment variables override the keychain, for headless use. Secrets are read once at start
 * into memory, so the request path never calls the keychain.
 */
export class KeychainSecretStore implements SecretStore {
  /** A plain copy: reading process.env goes through a slow native lookup on every access. */
  private readonly env: Record<string, string | undefined>;
  private readonly service: string;
  private readonly secrets = new Map<string, string>();
  /** Why the keychain cannot be used, or null when it can. */
  readonly unavailableReason: string | null;

  constructor(env: NodeJS.ProcessEnv, service = 'patchbay') {
    this.env = { ...env };
    this.service = service;
    let reason: string | null = null;
    try {
      for (const credential of findCredentials(service)) this.secrets.set(credential.account, credential.password);
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
    const fromEnv = provider.apiKeyEnv ? this.env[provider.apiKeyEnv] : undefined;
    return fromEnv || this.secrets.get(provider.name) || undefined;
  }

  source(provider: ResolvedProvider): SecretSource {
    if (provider.apiKeyEnv && this.env[provider.apiKeyEnv]) return 'env';
    return this.secrets.has(provider.name) ? 'keychain' : 'none';
  }

  describeSource(provider: ResolvedProvider): string {
    const env = provider.apiKeyEnv ? ` or set ${provider.apiKeyEnv}` : '';
    return this.available ? `run "patchbay providers set-key ${provider.name}"${env}` : `set ${provider.apiKeyEnv ?? `providers.${provider.name}.apiKeyEnv`}`;
  }

  set(providerName: string, secret: string): void {
    this.requireKeychain();
    new Entry(this.service, providerName).setPassword(secret);
    this.secrets.set(providerName, secret);
  }

  /** Returns whether there was a secret to delete. */
  delete(providerName: string): boolean {
    this.requireKeychain();
    const existed = new Entry(this.service, providerName).deletePassword();
    this.secrets.delete(providerName);
    return existed;
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
