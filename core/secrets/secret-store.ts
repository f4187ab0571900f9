import type { ResolvedProvider } from '../config/load-config.ts';

/** Where provider secrets come from. The request path reads them synchronously from memory. */
export interface SecretStore {
  get(provider: ResolvedProvider): string | undefined;
  /** Where a secret for this provider would come from, for messages that say what to fix. */
  describeSource(provider: ResolvedProvider): string;
}

/** Secrets from environment variables only (headless use, and the fallback when no keychain runs). */
export class EnvSecretStore implements SecretStore {
  private readonly env: NodeJS.ProcessEnv;
  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
  }

  get(provider: ResolvedProvider): string | undefined {
    const value = provider.apiKeyEnv ? this.env[provider.apiKeyEnv] : undefined;
    return value ? value : undefined;
  }

  describeSource(provider: ResolvedProvider): string {
    return provider.apiKeyEnv ? `set ${provider.apiKeyEnv}` : `set providers.${provider.name}.apiKeyEnv in the config`;
  }
}
