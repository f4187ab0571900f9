import type { SessionRow } from '../../api/types.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { ErrorNote } from '../../components/query-state.tsx';
import { formatDateTime, formatLogTime, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import type { RequestFilters } from '../requests/request-filters.ts';
import { className } from './class-costs.ts';
import { CLIENT_NAMES, flattenAgents } from './flatten-agents.ts';
import { useSessionRequests } from './use-sessions.ts';

/** One session: its totals, its agents (subagents indented under their parent) and its requests. */
export function SessionDetail({ row, filters, onClose }: { row: SessionRow | null; filters: RequestFilters; onClose: () => void }) {
  const requests = useSessionRequests(row, filters);
  const agents = row ? flattenAgents(row.agents) : [];
  return (
    <ModalDialog open={row !== null} onOpenChange={(open) => !open && onClose()} title={row ? `Session ${row.session_id}` : 'Session'} wide>
      {row ? (
        <>
          <dl className="details">
            <div><dt>Key</dt><dd>{row.key_name ?? 'no key'}{row.key_id ? ` (${row.key_id})` : ''}</dd></div>
            <div><dt>Client</dt><dd>{CLIENT_NAMES[row.client] ?? row.client} ({row.client === 'patchbay' ? 'X-Patchbay-Session' : row.client})</dd></div>
            <div><dt>Active</dt><dd>{formatDateTime(row.first_ts)} to {formatDateTime(row.last_ts)}</dd></div>
            <div><dt>Models</dt><dd>{row.models.join(', ') || '—'} on {row.providers.join(', ') || '—'}</dd></div>
            <div><dt>Requests</dt><dd>{formatTokens(row.requests)}{row.errors ? ` (${formatTokens(row.errors)} failed)` : ''}</dd></div>
            <div><dt>Tokens</dt><dd>{formatTokens(row.prompt_tokens)} in ({formatTokens(row.cache_read_tokens)} read from cache, {formatTokens(row.cache_write_tokens)} written), {formatTokens(row.completion_tokens)} out</dd></div>
            <div><dt>Cost</dt><dd>{formatUsd(row.cost_usd)}; caching saved {formatUsd(row.cache_saved_usd)} against list prices</dd></div>
          </dl>
          {row.classes && row.classes.some((c) => c.request_class !== null) ? (
            <>
              <h3>By request class</h3>
              <p className="muted">What each request was for, as the agent said (Claude Code's gateway hints): main turns, subagents, compactions, background calls.</p>
              <div className="table-wrap">
                <table>
                  <thead><tr><th scope="col">Class</th><th scope="col">Requests</th><th scope="col">Tokens in / out</th><th scope="col">Cost</th></tr></thead>
                  <tbody>
                    {row.classes.map((c) => (
                      <tr key={c.request_class ?? ''}>
                        <td>{className(c.request_class)}</td>
                        <td>{formatTokens(c.requests)}{c.errors ? ` (${formatTokens(c.errors)} failed)` : ''}</td>
                        <td>{formatTokens(c.prompt_tokens)} / {formatTokens(c.completion_tokens)}</td>
                        <td>{formatUsd(c.cost_usd)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : null}
          {agents.length > 0 ? (
            <>
              <h3>Agents</h3>
              <div className="table-wrap">
                <table>
                  <thead><tr><th scope="col">Agent</th><th scope="col">Requests</th><th scope="col">Tokens in / out</th><th scope="col">Cost</th><th scope="col">Cache saved</th></tr></thead>
                  <tbody>
                    {agents.map(({ agent, depth }) => (
                      <tr key={agent.agent_id}>
                        <td className="agent-cell" style={{ paddingLeft: `${6 + depth * 18}px` }}>{depth > 0 ? <span aria-hidden="true">↳ </span> : null}{agent.agent_id}{depth > 0 ? <span className="visually-hidden">, subagent of {agent.parent_agent_id}</span> : null}</td>
                        <td>{formatTokens(agent.requests)}</td>
                        <td>{formatTokens(agent.prompt_tokens)} / {formatTokens(agent.completion_tokens)}</td>
                        <td>{formatUsd(agent.cost_usd)}</td>
                        <td>{formatUsd(agent.cache_saved_usd)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : null}
          <h3>Requests</h3>
          <ErrorNote error={requests.error} />
          {requests.data ? (
            <div className="table-wrap">
              <table>
                <thead><tr><th scope="col">Time</th><th scope="col">Agent</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">In / cached / out</th><th scope="col">Cost</th></tr></thead>
                <tbody>
                  {requests.data.data.map((r) => (
                    <tr key={r.request_id}>
                      <td>{formatLogTime(r.ts)}</td>
                      <td>{r.agent_id ?? '—'}{r.request_class ? <span className="muted"> · {className(r.request_class)}</span> : null}</td>
                      <td title={r.route_reason ?? undefined}>{r.provider ?? '—'}</td>
                      <td>{String(r.status)}</td>
                      <td>{formatTokens(r.prompt_tokens)} / {formatTokens(r.cache_read_tokens ?? 0)} / {formatTokens(r.completion_tokens)}</td>
                      <td>{formatUsd(r.cost_usd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : null}
    </ModalDialog>
  );
}
