import type { Strategy } from '../core/config/config-schema.ts';
import type { LiveEvent } from './model/tray-state.ts';

/** What the tray knows at start; live events keep it current after. */
export interface RouterSnapshot {
  strategy: Strategy;
  paused: boolean;
  failingEndpoints: string[];
  today: { day: string; requests: number; costUsd: number };
}

/**
 * The router as the tray and the window use it, whether the app runs it (in-process: calls into
 * core) or manages a `patchbay serve` that already ran on the same data dir (attached: its /api
 * with the admin token). The tray code never knows which.
 */
export interface RouterConnection {
  mode: 'in-process' | 'attached';
  /** The router's origin, e.g. http://127.0.0.1:4141. */
  baseUrl: string;
  dataDir: string;
  snapshot(): Promise<RouterSnapshot>;
  setStrategy(strategy: Strategy): Promise<void>;
  setPaused(paused: boolean): Promise<void>;
  /** Creates a key and returns its secret (keys are stored hashed: this is the one chance to copy it). */
  createKey(name: string): Promise<string>;
  /** A one-time dashboard sign-in link (the code is in the fragment; the admin token never is). */
  signInUrl(): Promise<string>;
  /** Live events; returns the unsubscribe function. */
  subscribe(listener: (event: LiveEvent) => void): () => void;
  /** In-process: stops accepting, drains, flushes usage. Attached: only stops listening (the server keeps running). */
  close(): Promise<void>;
}

/** Endpoints whose breaker is not closed, from /api/status's `endpoints`. */
export function failingFromStatus(endpoints: Record<string, { breaker: string }>): string[] {
  return Object.entries(endpoints)
    .filter(([, health]) => health.breaker !== 'closed')
    .map(([id]) => id)
    .sort();
}
