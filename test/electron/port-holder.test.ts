import { describe, expect, it } from 'vitest';
import { listeningInodes, parseLsof, parseNetstat, portTakenMessage, socketInode } from '../../electron/model/port-holder.ts';

// Real layout of /proc/net/tcp: 4141 = 0x102D, 8080 = 0x1F90; state 0A = LISTEN, 01 = ESTABLISHED.
const PROC_NET_TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:102D 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 912345 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555 1 0000000000000000 100 0 0 10 0
   2: 0100007F:102D 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 20 4 30 10 -1
`;
const PROC_NET_TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:102D 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0000000000000000 100 0 0 10 0
`;

describe('which process holds a port', () => {
  it('finds the listening socket of a port in /proc/net/tcp and tcp6, not its connections', () => {
    expect(listeningInodes(PROC_NET_TCP, 4141)).toEqual([912345]);
    expect(listeningInodes(PROC_NET_TCP6, 4141)).toEqual([424242]);
    expect(listeningInodes(PROC_NET_TCP, 9999)).toEqual([]);
  });

  it('reads socket inodes from fd links only', () => {
    expect(socketInode('socket:[912345]')).toBe(912345);
    expect(socketInode('/dev/null')).toBeNull();
    expect(socketInode('pipe:[12]')).toBeNull();
  });

  it('parses lsof (macOS) and netstat (Windows)', () => {
    expect(parseLsof('COMMAND   PID USER   FD   TYPE DEVICE SIZE/OFF NODE NAME\nnode    4242 ann   22u  IPv4 0x1      0t0  TCP 127.0.0.1:4141 (LISTEN)\n')).toEqual({ pid: 4242, name: 'node' });
    expect(parseLsof('')).toBeNull();
    const netstat = '\r\nActive Connections\r\n\r\n  Proto  Local Address          Foreign Address        State           PID\r\n  TCP    127.0.0.1:41410        0.0.0.0:0              LISTENING       11\r\n  TCP    127.0.0.1:4141         0.0.0.0:0              LISTENING       5120\r\n';
    expect(parseNetstat(netstat, 4141)).toEqual({ pid: 5120, name: null });
    expect(parseNetstat(netstat, 80)).toBeNull();
  });

  it('says who holds the port and offers the free one', () => {
    const message = portTakenMessage(4141, { pid: 77, name: 'nginx' }, 4142);
    expect(message.title).toBe('Patchbay could not start: port 4141 is in use by nginx (pid 77).');
    expect(message.detail).toContain('Port 4142 is free');
  });
});
