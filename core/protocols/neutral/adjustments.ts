/**
 * What one attempt's translation left out of the caller's request or changed in it for the chosen
 * upstream. Every ingress and adapter writes here (through `UpstreamCall.adjustments`) instead of
 * dropping a field silently; the client reads it in `X-Patchbay-Dropped` / `X-Patchbay-Adjusted`
 * and the usage row keeps it.
 */
export class Adjustments {
  /** Fields left out, named as the caller wrote them: `tools[web_search]`, `output_config.effort`. */
  readonly dropped: string[] = [];
  /** Fields changed, with the new value and why: `max_tokens=16384 (gpt-4o output limit; asked 32000)`. */
  readonly adjusted: string[] = [];

  drop(field: string): void {
    if (!this.dropped.includes(field)) this.dropped.push(field);
  }

  adjust(change: string): void {
    if (!this.adjusted.includes(change)) this.adjusted.push(change);
  }

  get empty(): boolean {
    return this.dropped.length === 0 && this.adjusted.length === 0;
  }

  /** As the usage row stores it; null when nothing was adjusted. */
  toRecord(): AdjustmentsRecord | null {
    return this.empty ? null : { dropped: [...this.dropped], adjusted: [...this.adjusted] };
  }
}

/** The adjustments of the attempt that answered, as stored on the usage row and shown in the request log. */
export interface AdjustmentsRecord {
  dropped: string[];
  adjusted: string[];
}
