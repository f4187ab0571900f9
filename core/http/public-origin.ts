import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** What decides a request's origin: the config's public URL and the proxies allowed to say the scheme. */
export interface PublicOriginSettings {
  /** server.publicUrl as an origin (https://patchbay.example.com), or null. */
  publicUrl: string | null;
  /** server.trustedProxies: addresses or CIDR ranges. */
  trustedProxies: string[];
}

/** The parts of a request its origin is read from (an IncomingMessage has them all). */
export interface AddressedRequest {
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string };
}

/**
 * The origin of Patchbay's own pages as one request sees them, for the management API's same-origin
 * rule and for the links it hands out. A browser behind a TLS proxy sends `Origin: https://name`
 * while Patchbay itself speaks plain HTTP, so the scheme cannot be read off the connection:
 *
 * - with server.publicUrl, the origin is that URL's, for every request: exactly one origin is
 *   Patchbay's own, and every other is refused;
 * - else, from a configured proxy (server.trustedProxies, matched against the connection's peer
 *   address), the scheme is the last X-Forwarded-Proto value, or the last Forwarded element's
 *   proto=: the value the proxy next to Patchbay wrote (a client's own header comes before it);
 * - else `http://` and the Host header, as before.
 *
 * Only the scheme is ever taken from a forwarded header. The host is the Host header's, which the
 * host guard has already checked against the names Patchbay answers to, so no header a client
 * sends can make another site's origin Patchbay's own.
 */
export class PublicOrigin {
  readonly publicUrl: string | null;
  private readonly proxies: BlockList | null;

  constructor(settings: PublicOriginSettings) {
    this.publicUrl = settings.publicUrl === null ? null : new URL(settings.publicUrl).origin;
    this.proxies = settings.trustedProxies.length ? toBlockList(settings.trustedProxies) : null;
  }

  /** True when the request came straight from a configured proxy. */
  fromTrustedProxy(req: AddressedRequest): boolean {
    const peer = normalizePeer(req.socket.remoteAddress);
    if (!this.proxies || !peer) return false;
    return this.proxies.check(peer.address, peer.family);
  }

  /** This request's view of Patchbay's own origin, lower-cased; null when the request names no host. */
  of(req: AddressedRequest): string | null {
    if (this.publicUrl) return this.publicUrl;
    const host = req.headers.host?.trim().toLowerCase();
    if (!host) return null;
    const scheme = (this.fromTrustedProxy(req) ? forwardedProto(req.headers) : null) ?? 'http';
    return `${scheme}://${withoutDefaultPort(host, scheme)}`;
  }

  /** True when a browser page with this Origin header is one of Patchbay's own pages. */
  isOwn(origin: string, req: AddressedRequest): boolean {
    const own = this.of(req);
    return own !== null && normalizeOrigin(origin) === own;
  }

  /** Where links for this request point (sign-in links, the base URL): the public URL, else the request's own origin. */
  baseUrl(req: AddressedRequest, fallback: string): string {
    return this.of(req) ?? fallback;
  }
}

/** The host names a public URL adds to those the host guard answers to. */
export function hostsOfPublicUrl(publicUrl: string | null): string[] {
  return publicUrl === null ? [] : [new URL(publicUrl).hostname.toLowerCase()];
}

/**
 * The scheme the nearest proxy reports: the last X-Forwarded-Proto value, else the last Forwarded
 * element's proto (RFC 7239). Anything but http or https is ignored.
 */
export function forwardedProto(headers: IncomingHttpHeaders): 'http' | 'https' | null {
  const xfp = lastListValue(headers['x-forwarded-proto']);
  if (xfp !== null) return asScheme(xfp);
  const forwarded = lastListValue(headers.forwarded);
  if (forwarded === null) return null;
  for (const pair of forwarded.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq).trim().toLowerCase() !== 'proto') continue;
    return asScheme(pair.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return null;
}

/** The last element of a comma-separated header (repeated headers count as one list), or null. */
function lastListValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  const joined = Array.isArray(value) ? value.join(',') : value;
  const parts = joined.split(',').map((part) => part.trim()).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : null;
}

function asScheme(value: string): 'http' | 'https' | null {
  const lower = value.toLowerCase();
  return lower === 'http' || lower === 'https' ? lower : null;
}

/** An Origin header as compared: lower-case, no trailing slash, no default port. */
function normalizeOrigin(origin: string): string {
  const lower = origin.trim().toLowerCase().replace(/\/+$/, '');
  const match = /^(https?):\/\/(.+)$/.exec(lower);
  if (!match) return lower;
  return `${match[1]}://${withoutDefaultPort(match[2], match[1] as 'http' | 'https')}`;
}

/** Browsers leave the default port out of Origin; a Host header may carry it. */
function withoutDefaultPort(host: string, scheme: 'http' | 'https'): string {
  const port = scheme === 'https' ? ':443' : ':80';
  return host.endsWith(port) ? host.slice(0, -port.length) : host;
}

/** The peer as BlockList takes it: an IPv4-mapped IPv6 address (::ffff:10.0.0.5) as the IPv4 address it is. */
function normalizePeer(address: string | undefined): { address: string; family: 'ipv4' | 'ipv6' } | null {
  if (!address) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  const family = isIP(address);
  return family === 4 ? { address, family: 'ipv4' } : family === 6 ? { address, family: 'ipv6' } : null;
}

/** server.trustedProxies (validated by the config schema) as a BlockList: single addresses and CIDR ranges. */
function toBlockList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}
