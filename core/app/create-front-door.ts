import type { NetworkInterfaceInfo } from 'node:os';
import type { PatchbayConfig } from '../config/load-config.ts';
import { HostGuard } from '../http/host-guard.ts';
import { hostsOfPublicUrl, PublicOrigin } from '../http/public-origin.ts';
import { ReplicaLifecycle } from '../http/replica-lifecycle.ts';
import { reachableHostNames } from './listen-addresses.ts';

/** What every request meets first: the lifecycle (/health, a shutdown), the Host/Origin guard, and Patchbay's own origin. */
export interface FrontDoor {
  hostGuard: HostGuard;
  publicOrigin: PublicOrigin;
  lifecycle: ReplicaLifecycle;
}

/**
 * The names Patchbay answers to are the loopback ones, its listen address, server.allowedHosts and
 * server.publicUrl's host; a browser page may call it from this machine, from
 * server.allowedOrigins, or from its own origin as the request sees it (PublicOrigin).
 */
export function createFrontDoor(config: PatchbayConfig, host: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): FrontDoor {
  const publicOrigin = new PublicOrigin({ publicUrl: config.publicUrl, trustedProxies: config.trustedProxies });
  const hostGuard = new HostGuard({
    allowedHosts: [...config.allowedHosts, ...hostsOfPublicUrl(config.publicUrl)],
    allowedOrigins: config.allowedOrigins,
    listenHost: host,
    reachableAt: reachableHostNames(host, interfaces),
    isOwnOrigin: (origin, req) => publicOrigin.isOwn(origin, req),
  });
  return { hostGuard, publicOrigin, lifecycle: new ReplicaLifecycle({ drainMs: config.drainMs }) };
}
