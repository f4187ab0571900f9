import type { Management } from '../management/create-management.ts';
import type { DashboardSignIn } from '../stores/dashboard-sign-in.ts';
import type { HostGuard } from './host-guard.ts';
import type { PublicOrigin } from './public-origin.ts';
import type { ReplicaLifecycle } from './replica-lifecycle.ts';
import type { V1Deps } from './v1/create-v1-dispatcher.ts';

/** What the server's request listener and the Express app it loads are built from. */
export interface HttpDeps extends V1Deps {
  hostGuard: HostGuard;
  management: Management;
  adminToken: string;
  /** Dashboard sign-in codes and sessions (the other credential /api accepts). */
  sessions: DashboardSignIn;
  /** The built dashboard served at /ui (default: renderer/dist in the package). */
  dashboardDir?: string;
  /** Patchbay's own origin as each request sees it (server.publicUrl, a trusted proxy's scheme). */
  publicOrigin: PublicOrigin;
  /** Ready, draining or stopping: GET /health, and what a request arriving now gets. */
  lifecycle: ReplicaLifecycle;
}
