import type { Adjustments } from '../../protocols/neutral/adjustments.ts';
import { headerValue } from '../header-value.ts';

/** X-Patchbay-Dropped / X-Patchbay-Adjusted: what the answering attempt left out or changed, comma-separated. */
export function addAdjustmentHeaders(headers: Record<string, string>, adjustments: Adjustments | null): void {
  if (!adjustments) return;
  if (adjustments.dropped.length > 0) headers['x-patchbay-dropped'] = headerValue(adjustments.dropped.join(', '));
  if (adjustments.adjusted.length > 0) headers['x-patchbay-adjusted'] = headerValue(adjustments.adjusted.join(', '));
}
