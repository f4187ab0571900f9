import type { NetworkInterfaceInfo } from 'node:os';

export interface ListenAddresses {
  /** The URL for use on this machine (the CLI finds the server through it): loopback when listening on all interfaces. */
  url: string;
  /** Every URL the server answers at: `url` first, then the machine's network addresses. */
  urls: string[];
  /** True when other machines can reach the API (anything but loopback). */
  exposed: boolean;
  /** Host names (as a Host header carries them) of the non-loopback addresses, for the Host guard. */
  hostNames: string[];
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const hostPart = (address: string) => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);

/**
 * What `--host` means for a user: the URLs to print and whether the API left this machine.
 * 0.0.0.0 and :: are not addresses a browser can open, so they become this machine's own
 * addresses (link-local IPv6 ones need a zone id that URLs cannot carry, so they are left out).
 */
export function resolveListenAddresses(host: string, port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): ListenAddresses {
  const hostNames = reachableHostNames(host, interfaces);
  if (!WILDCARDS.has(host)) {
    const url = `http://${hostPart(host)}:${port}`;
    return { url, urls: [url], exposed: !isLoopback(host), hostNames };
  }
  const url = `http://127.0.0.1:${port}`;
  return { url, urls: [url, ...hostNames.map((name) => `http://${name}:${port}`)], exposed: true, hostNames };
}

/** The Host header names clients use to reach a server listening on `host` (before it has a port). */
export function reachableHostNames(host: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  if (!WILDCARDS.has(host)) return [hostPart(host).toLowerCase()];
  const withIpv6 = host !== '0.0.0.0';
  return Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((nic) => !nic.internal && (nic.family === 'IPv4' || (withIpv6 && !/^fe80:/i.test(nic.address))))
    .map((nic) => hostPart(nic.address).toLowerCase());
}
