import { useState } from 'react';
import type { SessionRow } from '../../api/types.ts';
import { EmptyState, ErrorNote } from '../../components/query-state.tsx';
import { formatLogTime, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { hasFilters, RequestFilterForm } from '../requests/request-filter-form.tsx';
import { NO_FILTERS, type RequestFilters } from '../requests/request-filters.ts';
import { CLIENT_NAMES, flattenAgents, shortId } from './flatten-agents.ts';
import { classCostLine } from './class-costs.ts';
import { SessionDetail } from './session-detail.tsx';
import { useSessions } from './use-sessions.ts';

const agentCount = (s: SessionRow) => flattenAgents(s.agents).length;

/** Agent sessions (Claude Code, Codex, any client sending X-Patchbay-Session): what each cost, and what caching saved. */
export default function SessionsPage() {
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS);
  const [open, setOpen] = useState<SessionRow | null>(null);
  const sessions = useSessions(filters);

  const filtered = hasFilters(filters);

  return (
    <>
      <div className="page-head">
        <h1>Sessions</h1>
      </div>
      <RequestFilterForm label="Filter sessions" model={{ placeholder: 'upstream id', title: "The model id the provider served, e.g. llama-3.3-70b-versatile" }} onApply={setFilters} />
      <ErrorNote error={sessions.error} />
      {sessions.isSuccess && sessions.rows.length === 0 ? (
        <EmptyState title={filtered ? 'No sessions match these filters' : 'No sessions yet'}>
          {filtered ? null : <p>Claude Code and Codex name their sessions on every request; other clients can send an X-Patchbay-Session header. Their sessions appear here.</p>}
        </EmptyState>
      ) : null}
      {sessions.rows.length > 0 ? (
        <div className="table-wrap tall">
          <table className="clickable">
            <thead>
              <tr>
                <th scope="col">Session</th><th scope="col">Client</th><th scope="col">Last request</th><th scope="col">Models</th>
                <th scope="col">Requests</th><th scope="col">Tokens in / out</th><th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {sessions.rows.map((s) => (
                <tr key={`${s.key_id ?? ''}\u0000${s.session_id}`}>
                  <td className="model-cell">
                    <button type="button" className="link" title={s.session_id} onClick={() => setOpen(s)}>{shortId(s.session_id)}<span className="visually-hidden">, open session</span></button>
                    {/* A session is its key's: the same id from another key is another line. */}
                    <span className="muted" title={s.key_id ?? undefined}>{s.key_name ?? s.key_id ?? 'no key'}{agentCount(s) > 0 ? ` · ${agentCount(s)} agent${agentCount(s) > 1 ? 's' : ''}` : ''}</span>
                  </td>
                  <td>{CLIENT_NAMES[s.client] ?? s.client}</td>
                  <td>{formatLogTime(s.last_ts)}</td>
                  <td className="model-cell">
                    <span title={s.models.join(', ')}>{s.models.join(', ') || '—'}</span>
                    <span className="muted" title={s.providers.join(', ')}>{s.providers.join(', ')}</span>
                  </td>
                  <td>{formatTokens(s.requests)}</td>
                  <td className="stacked">
                    <span>{formatTokens(s.prompt_tokens)} / {formatTokens(s.completion_tokens)}</span>
                    <span className="muted" title={`${formatTokens(s.cache_write_tokens)} written to the cache`}>{formatTokens(s.cache_read_tokens)} from cache</span>
                  </td>
                  <td className="stacked">
                    <span>{formatUsd(s.cost_usd)}</span>
                    <span className="muted" title="What prompt caching saved against list prices (a cache write can cost more than it saved)">{s.cache_saved_usd < 0 ? 'cache +' : 'saved '}{formatUsd(Math.abs(s.cache_saved_usd))}</span>
                    {classCostLine(s.classes) ? <span className="muted" title="Cost per request class, as the agent said what each request was for (the session's detail lists them all)">{classCostLine(s.classes)}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {sessions.hasNextPage ? (
        <button type="button" className="button" onClick={() => void sessions.fetchNextPage()} disabled={sessions.isFetchingNextPage}>{sessions.isFetchingNextPage ? 'Loading…' : 'Load more'}</button>
      ) : null}
      <SessionDetail row={open} filters={filters} onClose={() => setOpen(null)} />
    </>
  );
}
