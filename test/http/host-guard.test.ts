import { describe, expect, it } from 'vitest';
import { HostGuard } from '../../core/http/host-guard.ts';

describe('HostGuard', () => {
  const guard = new HostGuard({ allowedHosts: ['patchbay.internal'], allowedOrigins: ['https://tools.example.com'], listenHost: '127.0.0.1' });
  it.each([
    ['127.0.0.1:8790', true],
    ['localhost:8790', true],
    ['[::1]:8790', true],
    ['app.localhost:8790', true],
    ['patchbay.internal:8790', true],
    ['attacker.example:8790', false],
    ['127.0.0.1.attacker.example', false],
    [undefined, false],
  ])('Host %s allowed: %s', (host, allowed) => expect(guard.isAllowedHost(host)).toBe(allowed));

  it.each([
    ['http://localhost:5173', true],
    ['http://127.0.0.1:3000', true],
    ['https://tools.example.com', true],
    ['https://attacker.example', false],
    ['http://localhost.attacker.example', false],
  ])('Origin %s allowed: %s', (origin, allowed) => expect(guard.isAllowedOrigin(origin)).toBe(allowed));
});
