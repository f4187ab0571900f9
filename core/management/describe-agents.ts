import { launchAsShell, planAgentLaunch } from '../agents/plan-agent-launch.ts';
import type { AgentName, AgentProfiles } from '../config/config-schema.ts';
import { loadConfigFile } from '../config/load-config.ts';
import { listManagedModels } from './list-managed-models.ts';
import type { ManagementContext } from './management-context.ts';

/** GET /api/agents: one entry per coding agent, for the dashboard's copyable snippets. */
export interface AgentDescription {
  agent: AgentName;
  name: string;
  /** The one command (Patchbay running): makes and keeps the agent's key, applies the profile. */
  command: string;
  /** The same by hand: variables and arguments, the key as $PATCHBAY_KEY. */
  shell: string;
  profile: Record<string, unknown>;
}

/**
 * What `patchbay claude` / `patchbay codex` would start, as shell text (planAgentLaunch, the CLI's
 * own plan). The profiles are read from the config file at each call: `patchbay agents set`
 * writes the file while the server runs.
 */
export function describeAgents(ctx: Pick<ManagementContext, 'config' | 'configPath' | 'catalog' | 'baseUrl'>): { data: AgentDescription[] } {
  const { config, configPath, catalog, baseUrl } = ctx;
  let profiles: AgentProfiles = config.agents;
  try {
    profiles = loadConfigFile(configPath, { required: false }).agents;
  } catch {
    // An invalid file on disk: the profiles Patchbay started with.
  }
  const windows = new Map(listManagedModels(catalog, config).map((m) => [m.id, m.context_window]));
  const origin = (baseUrl ?? 'http://127.0.0.1:8790/v1').replace(/\/v1\/?$/, '');
  const names: Record<AgentName, string> = { claude: 'Claude Code', codex: 'Codex CLI' };
  return {
    data: (['claude', 'codex'] as const).map((agent) => ({
      agent,
      name: names[agent],
      command: `patchbay ${agent}`,
      shell: launchAsShell(planAgentLaunch(agent, { origin, key: null, profiles, catalogWindow: (model) => windows.get(model) || undefined })),
      profile: { ...(profiles[agent] ?? {}) },
    })),
  };
}
