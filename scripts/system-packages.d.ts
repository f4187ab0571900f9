/** See system-packages.js. */
export interface SystemPackage {
  name: string;
  modes: string[];
  command?: string;
  file?: string;
  keychain?: boolean;
  elsewhere?: { dnf?: string; pacman?: string };
}
export declare const SYSTEM_PACKAGES: SystemPackage[];
export interface Machine {
  platform: string;
  mode: string;
  secretServiceRunning: boolean;
  has: (probe: { command?: string; file?: string }) => boolean;
  isRoot: boolean;
  packageManager: 'apt-get' | 'dnf' | 'pacman' | null;
}
export type SystemPackagesPlan =
  | { action: 'none' }
  | { action: 'install'; packages: string[]; steps: string[][] }
  | { action: 'tell'; packages: string[]; message: string; fatal: boolean };
export declare function planSystemPackages(machine: Machine): SystemPackagesPlan;
export declare function needsPrivateKeyring(args: string[], env: Record<string, string | undefined>): boolean;
