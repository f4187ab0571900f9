import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { resolveListenAddresses } from '../../core/app/listen-addresses.ts';

const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal }) as NetworkInterfaceInfo;
const INTERFACES = {
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  eth0: [nic('192.168.1.20', 'IPv4'), nic('fd00::2', 'IPv6'), nic('fe80::1', 'IPv6')],
  wlan0: [nic('10.0.0.7', 'IPv4')],
};

describe('resolveListenAddresses', () => {
  it('on loopback: one local URL, not exposed', () => {
    expect(resolveListenAddresses('127.0.0.1', 8790, INTERFACES)).toEqual({ url: 'http://127.0.0.1:8790', urls: ['http://127.0.0.1:8790'], exposed: false, hostNames: ['127.0.0.1'] });
    expect(resolveListenAddresses('localhost', 8790, INTERFACES).exposed).toBe(false);
    expect(resolveListenAddresses('::1', 8790, INTERFACES)).toMatchObject({ url: 'http://[::1]:8790', exposed: false });
  });

  it('on 0.0.0.0: a loopback URL for local use, then every non-internal IPv4 address; exposed', () => {
    expect(resolveListenAddresses('0.0.0.0', 8790, INTERFACES)).toEqual({
      url: 'http://127.0.0.1:8790',
      urls: ['http://127.0.0.1:8790', 'http://192.168.1.20:8790', 'http://10.0.0.7:8790'],
      exposed: true,
      hostNames: ['192.168.1.20', '10.0.0.7'],
    });
  });

  it('on :: (both families): IPv6 addresses too, bracketed, leaving out link-local ones a URL cannot carry', () => {
    expect(resolveListenAddresses('::', 9000, INTERFACES)).toEqual({
      url: 'http://127.0.0.1:9000',
      urls: ['http://127.0.0.1:9000', 'http://192.168.1.20:9000', 'http://[fd00::2]:9000', 'http://10.0.0.7:9000'],
      exposed: true,
      hostNames: ['192.168.1.20', '[fd00::2]', '10.0.0.7'],
    });
  });

  it('on one non-loopback address: that address only; exposed', () => {
    expect(resolveListenAddresses('192.168.1.20', 8790, INTERFACES)).toEqual({ url: 'http://192.168.1.20:8790', urls: ['http://192.168.1.20:8790'], exposed: true, hostNames: ['192.168.1.20'] });
  });
});
