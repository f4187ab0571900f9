import type { Patchbay } from '../core/app/patchbay.ts';
import { utcDay } from './model/tray-state.ts';
import { failingFromStatus, type RouterConnection } from './router-connection.ts';

/** The router the app started itself: direct calls into core's management operations and event hub. */
export function inProcessConnection(patchbay: Patchbay, dataDir: string): RouterConnection {
  const management = patchbay.management;
  return {
    mode: 'in-process',
    baseUrl: patchbay.url,
    dataDir,
    async snapshot() {
      const day = utcDay(Date.now());
      const status = management.status();
      const totals = await management.usageTotals({ from: day, to: day });
      return { strategy: status.strategy, paused: status.paused, failingEndpoints: failingFromStatus(status.endpoints), today: { day, requests: totals.requests, costUsd: totals.cost_usd } };
    },
    async setStrategy(strategy) {
      await management.setRouting({ strategy });
    },
    async setPaused(paused) {
      await management.setRouting({ paused });
    },
    async createKey(name) {
      return (await management.createKey({ name })).secret;
    },
    async signInUrl() {
      return patchbay.signInLink();
    },
    subscribe(listener) {
      return patchbay.events.subscribe((name, data) => listener({ name, data } as Parameters<typeof listener>[0]));
    },
    close: () => patchbay.close(),
  };
}
