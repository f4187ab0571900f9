import type { RequestRow } from '../../api/types.ts';

/** What translation left out of a request or changed for the upstream that answered (X-Patchbay-Dropped / -Adjusted). */
export function RequestAdjustments({ adjustments }: { adjustments: RequestRow['adjustments'] }) {
  if (!adjustments || (adjustments.dropped.length === 0 && adjustments.adjusted.length === 0)) return null;
  return (
    <>
      <h3>Translation</h3>
      <dl className="details">
        {adjustments.dropped.length > 0 ? <div><dt>Left out</dt><dd>{adjustments.dropped.join(', ')}</dd></div> : null}
        {adjustments.adjusted.length > 0 ? <div><dt>Changed</dt><dd>{adjustments.adjusted.join(', ')}</dd></div> : null}
      </dl>
    </>
  );
}
