import { useState } from 'react';
import type { RequestRow } from '../../api/types.ts';
import { EmptyState, ErrorNote } from '../../components/query-state.tsx';
import { formatLogTime, formatMs, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { RequestDetail } from './request-detail.tsx';
import { hasFilters, RequestFilterForm } from './request-filter-form.tsx';
import { isError, NO_FILTERS, type RequestFilters } from './request-filters.ts';
import { useRequestLog } from './use-request-log.ts';

export default function RequestsPage() {
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS);
  const [open, setOpen] = useState<RequestRow | null>(null);
  const log = useRequestLog(filters);

  const filtered = hasFilters(filters);

  return (
    <>
      <div className="page-head">
        <h1>Requests</h1>
        <span className="live-dot" role="status" aria-live="polite">{log.live === 'live' ? '● Live' : log.live === 'connecting' ? 'Connecting…' : 'Not live'}</span>
      </div>
      <RequestFilterForm label="Filter requests" model={{ placeholder: 'alias or id', title: "The model asked for (an alias such as llama-3.3-70b), the provider's own id (llama-3.3-70b-versatile) or provider/model" }} onApply={setFilters} />
      <ErrorNote error={log.error} />
      {log.isSuccess && log.rows.length === 0 ? (
        <EmptyState title={filtered ? 'No requests match these filters' : 'No requests yet'}>
          {filtered ? null : <p>Point a tool at Patchbay (see Overview for the base URL and code) and its requests appear here as they happen.</p>}
        </EmptyState>
      ) : null}
      {log.rows.length > 0 ? (
        <div className="table-wrap tall">
          <table className="clickable">
            <thead><tr><th scope="col">Time</th><th scope="col">Model</th><th scope="col">Provider</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Latency</th></tr></thead>
            <tbody>
              {log.rows.map((r) => (
                <tr key={r.request_id}>
                  {/* The visible time begins the button's name (WCAG 2.5.3): a voice user says what they see. */}
                  <td><button type="button" className="link" onClick={() => setOpen(r)}>{formatLogTime(r.ts)}<span className="visually-hidden">, open request {r.request_id}</span></button></td>
                  {/* One id per line, cut with an ellipsis (the whole id in the tooltip and the detail): wrapped at every dash, one id took four lines. */}
                  <td className="model-cell">
                    <span title={r.requested_model ?? undefined}>{r.requested_model ?? '—'}</span>
                    {r.model && r.model !== r.requested_model ? <span className="muted" title={r.model}>→ {r.model}</span> : null}
                  </td>
                  <td>{r.provider ?? '—'}{r.fallback ? <span className="fallback-mark" title={r.route_reason ?? undefined}>fallback</span> : null}</td>
                  <td>{r.key_name ?? '—'}</td>
                  <td><span className={`badge ${isError(r) ? 'bad' : 'ok'}`}>{String(r.status)}</span>{r.error_type ? <span className="error-type" title={r.error_message ?? r.error_type}> {r.error_type}</span> : null}</td>
                  <td>{formatTokens(r.total_tokens)}</td>
                  <td>{r.price_unknown ? 'unknown' : formatUsd(r.cost_usd)}</td>
                  <td>{formatMs(r.latency_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {log.hasNextPage ? (
        <button type="button" className="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>{log.isFetchingNextPage ? 'Loading…' : 'Load more'}</button>
      ) : null}
      <RequestDetail row={open} onClose={() => setOpen(null)} />
    </>
  );
}
