import type { Estimate } from './budget-ledger.ts';

/** A request let through: it holds its reservation until it settles with what it really used. */
export interface Admission {
  settle(actual: Estimate): void;
}
