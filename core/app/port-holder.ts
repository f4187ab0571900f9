/** Who holds a TCP port, as the start-up failure message names it. */
export interface PortHolder {
  pid: number;
  /** The process name; null when the OS doesn't say (another user's process). */
  name: string | null;
}

/**
 * The socket inodes listening on `port` in the text of /proc/net/tcp or /proc/net/tcp6
 * ("sl local_address rem_address st ... inode": the port is hex after the colon, state 0A is LISTEN).
 */
export function listeningInodes(procNetTcp: string, port: number): number[] {
  const inodes: number[] = [];
  for (const line of procNetTcp.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const local = fields[1];
    const localPort = Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    const inode = Number(fields[9]);
    if (localPort === port && fields[3] === '0A' && inode > 0) inodes.push(inode);
  }
  return inodes;
}

/** The inode of a /proc/PID/fd link target "socket:[12345]"; null for anything else. */
export function socketInode(linkTarget: string): number | null {
  const match = /^socket:\[(\d+)\]$/.exec(linkTarget);
  return match ? Number(match[1]) : null;
}

/** `lsof -nP -iTCP:PORT -sTCP:LISTEN` output (macOS): the first process listed. */
export function parseLsof(text: string): PortHolder | null {
  const line = text.split('\n').find((l, i) => i > 0 && l.trim().length > 0);
  if (!line) return null;
  const [name, pid] = line.trim().split(/\s+/);
  return Number.isInteger(Number(pid)) ? { pid: Number(pid), name: name ?? null } : null;
}

/** `netstat -ano -p TCP` output (Windows): the PID on the LISTENING line for the port (no name: tasklist has it). */
export function parseNetstat(text: string, port: number): PortHolder | null {
  for (const line of text.split(/\r?\n/)) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] !== 'TCP' || fields[3] !== 'LISTENING') continue;
    if (Number(fields[1].slice(fields[1].lastIndexOf(':') + 1)) === port) return { pid: Number(fields[4]), name: null };
  }
  return null;
}

/** The start-up failure for a taken port, with the way out: the message says who holds it and which port is free. */
export function portTakenMessage(port: number, holder: PortHolder | null, freePort: number | null): { title: string; detail: string } {
  const who = holder ? `${holder.name ?? 'a process'} (pid ${holder.pid})` : 'another program';
  const patchbayHolds = holder?.name != null && /patchbay|node|electron/i.test(holder.name);
  return {
    title: `Patchbay could not start: port ${port} is in use by ${who}.`,
    detail:
      (patchbayHolds ? 'If that is another Patchbay, quit it or use it instead. ' : `Stop ${who} or choose another port. `) +
      (freePort !== null ? `Port ${freePort} is free: start there now (for this run; point clients at the new base URL, or set "port" in config.json to keep it).` : 'No free port was found nearby; set "port" in config.json.'),
  };
}
