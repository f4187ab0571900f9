import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/api-client.ts';
import type { RequestRow } from '../../api/types.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { ErrorNote } from '../../components/query-state.tsx';
import { RequestAdjustments } from './request-adjustments.tsx';
import { formatDateTime, formatMs, formatTokens, formatUsd } from '../../format/format-numbers.ts';

/** One request: its attempts in order and why it was routed that way. */
export function RequestDetail({ row, onClose }: { row: RequestRow | null; onClose: () => void }) {
  const detail = useQuery({
    queryKey: ['request', row?.request_id],
    queryFn: () => api.get<RequestRow>(`/usage/log/${encodeURIComponent(row!.request_id)}`),
    enabled: row !== null,
  });
  const r = detail.data ?? row;
  return (
    <ModalDialog open={row !== null} onOpenChange={(open) => !open && onClose()} title={r ? `Request ${r.request_id}` : 'Request'} wide>
      {r ? (
        <>
          <dl className="details">
            <div><dt>Time</dt><dd>{formatDateTime(r.ts)}</dd></div>
            <div><dt>Key</dt><dd>{r.key_name ?? r.key_id ?? '—'}</dd></div>
            <div><dt>Requested</dt><dd>{r.requested_model}{r.strategy ? ` (${r.strategy})` : ''}</dd></div>
            <div><dt>Served by</dt><dd>{r.provider ? `${r.provider} / ${r.model}${r.provider_key ? ` (key ${r.provider_key})` : ''}${r.fallback ? ' (fallback)' : ''}` : r.status >= 400 ? 'no provider' : '—'}</dd></div>
            <div><dt>Status</dt><dd>{String(r.status)}{r.error_type ? ` · ${r.error_type}` : ''}</dd></div>
            <div><dt>Tokens</dt><dd>{formatTokens(r.prompt_tokens)} in, {formatTokens(r.completion_tokens)} out</dd></div>
            <div><dt>Cost</dt><dd>{r.price_unknown ? 'unknown: no price table has this model (give it a price under providers in config.json)' : formatUsd(r.cost_usd)}</dd></div>
            <div><dt>Latency</dt><dd>{formatMs(r.latency_ms)}{r.first_byte_ms !== null ? ` (first byte ${formatMs(r.first_byte_ms)})` : ''}</dd></div>
          </dl>
          {r.error_message ? (
            <>
              <h3>Why it failed</h3>
              <p className="why-failed">{r.error_message}</p>
            </>
          ) : null}
          <h3>Route reason</h3>
          <p>{r.route_reason ?? (r.status >= 400 ? 'Not routed: the request was refused before any provider was tried.' : '—')}</p>
          <RequestAdjustments adjustments={r.adjustments} />
          <h3>Attempts</h3>
          {r.attempts.length === 0 ? <p className="muted">No provider was tried.</p> : null}
          <div className="table-wrap" hidden={r.attempts.length === 0}>
            <table>
              <thead><tr><th scope="col">#</th><th scope="col">Provider</th><th scope="col">Model</th><th scope="col">Status</th><th scope="col">Error</th><th scope="col">Latency</th></tr></thead>
              <tbody>
                {r.attempts.map((a, i) => (
                  <tr key={i}>
                    <td>{i + 1}</td><td>{a.provider}</td><td>{a.model}</td><td>{String(a.status)}</td>
                    <td>{a.error_type ? `${a.error_type}${a.message ? `: ${a.message}` : ''}` : '—'}</td>
                    <td>{formatMs(a.latency_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ErrorNote error={detail.error} />
        </>
      ) : null}
    </ModalDialog>
  );
}
