import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { listeningInodes, parseLsof, parseNetstat, socketInode, type PortHolder } from './port-holder.ts';

/** Which process listens on a TCP port, as far as this user may see; null when unknown. */
export async function findPortHolder(port: number, platform: NodeJS.Platform = process.platform): Promise<PortHolder | null> {
  try {
    if (platform === 'linux') return await fromProc(port);
    if (platform === 'darwin') return parseLsof(await run('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN']));
    if (platform === 'win32') return parseNetstat(await run('netstat', ['-ano', '-p', 'TCP']), port);
  } catch {
    // The tools are missing or refused: say "another program" rather than fail the message.
  }
  return null;
}

async function fromProc(port: number): Promise<PortHolder | null> {
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')));
  const inodes = new Set(tables.flatMap((text) => listeningInodes(text, port)));
  if (inodes.size === 0) return null;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    // Other users' fd folders are unreadable: skipped.
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const inode = socketInode(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''));
      if (inode !== null && inodes.has(inode)) {
        const name = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() || null;
        return { pid: Number(pid), name };
      }
    }
  }
  return null;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile(command, args, { timeout: 5_000 }, (error, stdout) => (error && !stdout ? reject(error) : resolve(stdout))));
}
