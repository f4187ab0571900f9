import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config/load-config.ts';
import { forwardedProto, hostsOfPublicUrl, PublicOrigin } from '../../core/http/public-origin.ts';

/** A request as the server sees it: its headers and the address of the peer that connected. */
const request = (headers: IncomingHttpHeaders, remoteAddress = '10.0.0.5') => ({ headers, socket: { remoteAddress } });

describe('PublicOrigin: which browser origin is Patchbay\'s own', () => {
  it('with server.publicUrl: exactly that origin, whatever the request says, and every other refused', () => {
    const origin = new PublicOrigin({ publicUrl: 'https://Patchbay.Example.com', trustedProxies: [] });
    const direct = request({ host: '10.0.0.11:8790' }, '10.0.0.99');
    expect(origin.of(direct)).toBe('https://patchbay.example.com');
    expect(origin.isOwn('https://patchbay.example.com', direct)).toBe(true);
    // Browsers omit the default port; a trailing slash or case does not make another origin.
    expect(origin.isOwn('https://patchbay.example.com:443', direct)).toBe(true);
    expect(origin.isOwn('HTTPS://PATCHBAY.EXAMPLE.COM/', direct)).toBe(true);
    for (const other of ['http://patchbay.example.com', 'https://patchbay.example.com:8443', 'https://evil.example.com', 'http://10.0.0.11:8790', 'null', 'https://patchbay.example.com.evil.example']) {
      expect(origin.isOwn(other, direct), other).toBe(false);
    }
    // A forwarded header cannot move it either, from anyone.
    expect(origin.of(request({ host: 'evil.example.com', 'x-forwarded-proto': 'http' }))).toBe('https://patchbay.example.com');
  });

  it('from a trusted proxy: the scheme it forwards and the Host header (X-Forwarded-Proto or Forwarded proto=)', () => {
    const origin = new PublicOrigin({ publicUrl: null, trustedProxies: ['10.0.0.5', '192.168.7.0/24', 'fd00::/8'] });
    expect(origin.of(request({ host: 'patchbay.example.com', 'x-forwarded-proto': 'https' }))).toBe('https://patchbay.example.com');
    expect(origin.of(request({ host: 'patchbay.example.com:443', forwarded: 'for=198.51.100.7;proto=https;host=patchbay.example.com' }, '192.168.7.20'))).toBe('https://patchbay.example.com');
    expect(origin.of(request({ host: 'patchbay.example.com:8443', 'x-forwarded-proto': 'https' }, 'fd00::5'))).toBe('https://patchbay.example.com:8443');
    // IPv4 peers of a server listening on :: arrive IPv4-mapped.
    expect(origin.of(request({ host: 'patchbay.example.com', 'x-forwarded-proto': 'https' }, '::ffff:10.0.0.5'))).toBe('https://patchbay.example.com');
    expect(origin.isOwn('https://patchbay.example.com', request({ host: 'patchbay.example.com', 'x-forwarded-proto': 'https' }))).toBe(true);
    expect(origin.isOwn('http://patchbay.example.com', request({ host: 'patchbay.example.com', 'x-forwarded-proto': 'https' }))).toBe(false);
  });

  it('from anyone else: forwarded headers are ignored, the origin is http:// and the Host header as before', () => {
    const origin = new PublicOrigin({ publicUrl: null, trustedProxies: ['10.0.0.5'] });
    const spoofed = request({ host: 'patchbay.example.com', 'x-forwarded-proto': 'https', forwarded: 'proto=https' }, '10.0.0.6');
    expect(origin.of(spoofed)).toBe('http://patchbay.example.com');
    expect(origin.isOwn('https://patchbay.example.com', spoofed)).toBe(false);
    const none = new PublicOrigin({ publicUrl: null, trustedProxies: [] });
    expect(none.of(request({ host: '127.0.0.1:8790', 'x-forwarded-proto': 'https' }, '127.0.0.1'))).toBe('http://127.0.0.1:8790');
    expect(none.of(request({}))).toBeNull();
    expect(none.isOwn('http://127.0.0.1:8790', request({}))).toBe(false);
  });

  it('reads the value the nearest proxy wrote: the last of a list, never a client\'s earlier one', () => {
    expect(forwardedProto({ 'x-forwarded-proto': 'http, https' })).toBe('https');
    expect(forwardedProto({ 'x-forwarded-proto': 'https,http' })).toBe('http');
    expect(forwardedProto({ forwarded: 'proto=http;host=evil.example, for=10.0.0.1;proto="https"' })).toBe('https');
    expect(forwardedProto({ forwarded: 'proto=https, for=1.2.3.4;PROTO=http' })).toBe('http');
    // X-Forwarded-Proto first (what Caddy, nginx and most balancers set), then Forwarded.
    expect(forwardedProto({ 'x-forwarded-proto': 'https', forwarded: 'proto=http' })).toBe('https');
    expect(forwardedProto({ forwarded: 'for=10.0.0.1' })).toBeNull();
    expect(forwardedProto({ 'x-forwarded-proto': 'javascript' })).toBeNull();
    expect(forwardedProto({})).toBeNull();
  });

  it('the public URL\'s host joins the names the host guard answers to', () => {
    expect(hostsOfPublicUrl('https://Patchbay.Example.com:8443')).toEqual(['patchbay.example.com']);
    expect(hostsOfPublicUrl(null)).toEqual([]);
  });
});

describe('server.publicUrl and server.trustedProxies in config.json', () => {
  it('take an origin and addresses or CIDR ranges', () => {
    const config = parseConfig({ server: { publicUrl: 'https://patchbay.example.com/', trustedProxies: ['10.0.0.5', '10.1.0.0/16', '::1'], drainMs: 3000 } }, 'config.json');
    expect(config.publicUrl).toBe('https://patchbay.example.com');
    expect(config.trustedProxies).toEqual(['10.0.0.5', '10.1.0.0/16', '::1']);
    expect(config.drainMs).toBe(3000);
    const defaults = parseConfig({}, 'config.json');
    expect([defaults.publicUrl, defaults.trustedProxies, defaults.drainMs]).toEqual([null, [], 5000]);
  });

  it.each([
    [{ publicUrl: 'patchbay.example.com' }, 'server.publicUrl: must be an http:// or https:// URL'],
    [{ publicUrl: 'https://patchbay.example.com/patchbay' }, 'server.publicUrl: must be an origin only'],
    [{ publicUrl: 'https://admin:pw@patchbay.example.com' }, 'server.publicUrl: must be an origin only'],
    [{ trustedProxies: ['proxy.internal'] }, 'server.trustedProxies.0: must be an IP address or a CIDR range'],
    [{ trustedProxies: ['10.0.0.0/33'] }, 'server.trustedProxies.0: must be an IP address or a CIDR range'],
  ])('refuses %j, naming the field', (server, message) => {
    expect(() => parseConfig({ server }, 'config.json')).toThrow(message);
  });
});
