import type { IncomingMessage } from 'node:http';
import { PermissionDeniedError } from '../errors/patchbay-error.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Host name without the port, lower-cased; keeps IPv6 brackets. */
export function hostName(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/**
 * Every page a browser loads can send requests to localhost. A DNS-rebinding page arrives with its
 * own domain in Host; a cross-site page arrives with its Origin. Both are refused before any other work.
 */
export class HostGuard {
  private readonly allowedHosts: Set<string>;
  private readonly allowedOrigins: Set<string>;

  /**
   * `reachableAt`: the addresses the server listens on (its interfaces' addresses when it listens
   * on 0.0.0.0 or ::). IP literals are safe to allow: a DNS-rebinding page always arrives with a domain name.
   */
  /** The request's own origin (its public URL, or the scheme a trusted proxy forwards): a page of it is Patchbay's own. */
  private readonly isOwnOrigin: (origin: string, req: IncomingMessage) => boolean;

  constructor(options: { allowedHosts: string[]; allowedOrigins: string[]; listenHost: string; reachableAt?: string[]; isOwnOrigin?: (origin: string, req: IncomingMessage) => boolean }) {
    this.isOwnOrigin = options.isOwnOrigin ?? (() => false);
    this.allowedHosts = new Set([...options.allowedHosts, ...(options.reachableAt ?? [])].map((h) => h.toLowerCase()));
    if (!['0.0.0.0', '::'].includes(options.listenHost)) this.allowedHosts.add(hostName(options.listenHost.includes(':') && !options.listenHost.startsWith('[') ? `[${options.listenHost}]` : options.listenHost));
    this.allowedOrigins = new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/+$/, '')));
  }

  /** Host header values already found allowed: a client sends the same one on every request. */
  private readonly seenAllowed = new Set<string>();

  isAllowedHost(hostHeader: string | undefined): boolean {
    if (!hostHeader) return false;
    if (this.seenAllowed.has(hostHeader)) return true;
    const name = hostName(hostHeader);
    const allowed = isLoopbackName(name) || this.allowedHosts.has(name);
    if (allowed && this.seenAllowed.size < 64) this.seenAllowed.add(hostHeader);
    return allowed;
  }

  /** Origins of pages served from this machine (any loopback port) or named in the config. */
  isAllowedOrigin(origin: string): boolean {
    const normalized = origin.toLowerCase();
    if (this.allowedOrigins.has(normalized)) return true;
    try {
      const url = new URL(normalized);
      return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(url.hostname);
    } catch {
      return false;
    }
  }

  /** Throws a 403 naming what to change. */
  check(req: IncomingMessage): void {
    const host = req.headers.host;
    if (!this.isAllowedHost(host)) {
      throw new PermissionDeniedError(
        `Patchbay refused a request addressed to host "${host ?? '(none)'}": it answers only requests for localhost, 127.0.0.1 or [::1], to protect against DNS rebinding. Use http://127.0.0.1:<port>, or add the name to server.allowedHosts in the config.`,
        'invalid_host',
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null' && !this.isAllowedOrigin(origin) && !this.isOwnOrigin(origin, req)) {
      throw new PermissionDeniedError(
        `Patchbay refused a request from the web page origin "${origin}": browser pages may call it only from this machine or from Patchbay's own origin. Behind a reverse proxy, set server.publicUrl to the address people use (or server.trustedProxies to the proxy's address); for another site's pages calling /v1, add their origin to server.allowedOrigins.`,
        'invalid_origin',
      );
    }
    if (origin === 'null') {
      throw new PermissionDeniedError('Patchbay refused a request from an opaque ("null") origin, such as a sandboxed page or a file.', 'invalid_origin');
    }
  }
}
