import { ExportResultCode, type ExportResult } from '@opentelemetry/core';

/** How exports to the collector are going, for the dashboard. */
export interface ExportStatus {
  lastSuccessAt: number | null;
  lastErrorAt: number | null;
  /** The last failure's message (the collector's answer or the network error); null once one succeeds after it. */
  lastError: string | null;
}

/**
 * Watches every export's result. A collector that cannot be reached is said once in the log (not
 * per batch, not per request), and once more when it answers again; the dashboard shows the last
 * error. Exports run in the SDK's batch timers, never in a request: a dead collector costs a
 * request nothing (the batch queue is bounded and drops what does not fit).
 */
export class ExportHealth {
  private status: ExportStatus = { lastSuccessAt: null, lastErrorAt: null, lastError: null };
  private failing = false;
  private readonly where: string;
  private readonly log: (message: string) => void;
  private readonly now: () => number;

  constructor(where: string, log: (message: string) => void, now: () => number = Date.now) {
    this.where = where;
    this.log = log;
    this.now = now;
  }

  /** Makes the exporter report each result here; everything else about it stays as it is. */
  watch<T, E extends { export(items: T, done: (result: ExportResult) => void): void }>(signal: string, exporter: E): E {
    const send = exporter.export.bind(exporter);
    exporter.export = (items: T, done: (result: ExportResult) => void) =>
      send(items, (result) => {
        this.note(signal, result);
        done(result);
      });
    return exporter;
  }

  snapshot(): ExportStatus {
    return { ...this.status };
  }

  private note(signal: string, result: ExportResult): void {
    if (result.code === ExportResultCode.SUCCESS) {
      this.status = { ...this.status, lastSuccessAt: this.now(), lastError: null };
      if (this.failing) this.log(`OpenTelemetry export to ${this.where} works again.`);
      this.failing = false;
      return;
    }
    const message = result.error?.message || 'the export failed';
    this.status = { ...this.status, lastErrorAt: this.now(), lastError: `${signal}: ${message}` };
    if (!this.failing) this.log(`OpenTelemetry export to ${this.where} failed (${signal}: ${message}). Requests are not affected; what cannot be sent is dropped (said once, until an export succeeds).`);
    this.failing = true;
  }
}
