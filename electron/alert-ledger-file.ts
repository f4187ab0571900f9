import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY_LEDGER, pruneLedger, type AlertLedger } from './model/alert-rules.ts';

/** The alerts already shown this month, in the data dir, so a restart doesn't repeat them. */
export function alertLedgerPath(dataDir: string): string {
  return join(dataDir, 'desktop-alerts.json');
}

export function loadAlertLedger(dataDir: string, now: number): AlertLedger {
  try {
    const raw = JSON.parse(readFileSync(alertLedgerPath(dataDir), 'utf8')) as Partial<AlertLedger>;
    return pruneLedger({ shown: Array.isArray(raw.shown) ? raw.shown.filter((id) => typeof id === 'string') : [], failing: {} }, now);
  } catch {
    // Missing or unreadable: start empty (at worst an alert repeats once).
    return EMPTY_LEDGER;
  }
}

export function saveAlertLedger(dataDir: string, ledger: AlertLedger): void {
  const path = alertLedgerPath(dataDir);
  writeFileSync(`${path}.tmp`, JSON.stringify({ shown: ledger.shown }), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
