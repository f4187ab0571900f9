import { Entry } from '@napi-rs/keyring';
import type { AgentName } from '../config/config-schema.ts';

/**
 * The Patchbay key `patchbay claude` / `patchbay codex` made for an agent, kept in the OS keychain
 * under a service of its own (so the provider secrets' service holds only provider secrets), one
 * entry per agent and data dir: a key belongs to the Patchbay whose database made it.
 */
export interface AgentKey {
  id: string;
  secret: string;
}

export function agentKeyService(env: NodeJS.ProcessEnv): string {
  return `${env.PATCHBAY_KEYCHAIN_SERVICE || 'patchbay'}-agents`;
}

export class AgentKeyStore {
  private readonly service: string;

  constructor(env: NodeJS.ProcessEnv) {
    this.service = agentKeyService(env);
  }

  private entry(agent: AgentName, dataDir: string): Entry {
    return new Entry(this.service, `${agent}@${dataDir}`);
  }

  /** The stored key, or null when none is stored. Throws when the keychain cannot be reached. */
  get(agent: AgentName, dataDir: string): AgentKey | null {
    const text = this.entry(agent, dataDir).getPassword();
    if (!text) return null;
    try {
      const parsed = JSON.parse(text) as Partial<AgentKey>;
      return typeof parsed.id === 'string' && typeof parsed.secret === 'string' ? { id: parsed.id, secret: parsed.secret } : null;
    } catch {
      return null;
    }
  }

  set(agent: AgentName, dataDir: string, key: AgentKey): void {
    this.entry(agent, dataDir).setPassword(JSON.stringify(key));
  }
}
