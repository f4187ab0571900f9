import { createPatchbay, type Patchbay } from '../core/app/create-patchbay.ts';
import { resolveDataDir } from '../core/config/data-dir.ts';

export interface RunningCore {
  patchbay: Patchbay;
  /** Where the dashboard is served (same origin as the management API it calls). */
  dashboardUrl: string;
}

/** Starts the same core `patchbay serve` runs, on the same data dir, so CLI and app share keys and usage. */
export async function startCore(): Promise<RunningCore> {
  const patchbay = await createPatchbay({ dataDir: resolveDataDir(), log: (message) => console.error(message) });
  return { patchbay, dashboardUrl: `${patchbay.url}/dashboard/` };
}
