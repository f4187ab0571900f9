import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Tabs } from 'radix-ui';
import { useMemo, useState } from 'react';
import { api } from '../../api/api-client.ts';
import { queryKeys, useKeys, useStatus } from '../../api/shared-queries.ts';
import type { AgentsBody, KeyView, ProviderStatus, UsageTotals } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { EmptyState, ErrorNote } from '../../components/query-state.tsx';
import { SecretDialog } from '../../components/secret-dialog.tsx';
import { formatLogTime, formatMs, formatPercent, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { useNavigate } from '../../layout/navigation-context.ts';
import { todayUtc } from '../usage/date-range.ts';
import { buildAgentSnippets, buildSnippets } from './build-snippets.ts';
import { TelemetryPanel } from './telemetry-panel.tsx';

function TotalsCard({ title, totals }: { title: string; totals: UsageTotals | undefined }) {
  return (
    <section className="card stat-card" aria-label={title}>
      <h3>{title}</h3>
      <dl className="stats">
        <div><dt>Requests</dt><dd>{formatTokens(totals?.requests)}</dd></div>
        <div><dt>Tokens</dt><dd>{formatTokens(totals?.total_tokens)}</dd></div>
        <div><dt>Cost</dt><dd>{formatUsd(totals?.cost_usd)}</dd></div>
      </dl>
    </section>
  );
}

/** A provider's last failed attempt: when, which model, the status and what the provider said. */
function LastError({ error }: { error: NonNullable<ProviderStatus['last_error']> }) {
  return (
    <>
      <span className="badge bad">{error.status}{error.error_type ? ` ${error.error_type}` : ''}</span> {formatLogTime(error.at)} · {error.model}
      {error.message ? <span className="muted" style={{ display: 'block' }}>{error.message}</span> : null}
    </>
  );
}

function ProviderHealth({ providers }: { providers: ProviderStatus[] }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr><th scope="col">Provider</th><th scope="col">Key</th><th scope="col">Enabled</th><th scope="col">Breaker</th><th scope="col">Latency p50</th><th scope="col">Error rate</th><th scope="col">Last error</th></tr>
        </thead>
        <tbody>
          {providers.map((p) => (
            <tr key={p.name}>
              <th scope="row">{p.name}</th>
              <td>{p.secret_withheld ? <span className="badge warn">withheld</span> : p.key_source === 'none' ? (p.requires_key ? <span className="badge warn">missing</span> : 'not needed') : <span className="badge ok">{p.key_source}</span>}</td>
              <td>{p.enabled ? 'yes' : 'no'}</td>
              <td><span className={`badge ${p.breaker === 'closed' ? 'ok' : p.breaker === 'open' ? 'bad' : 'warn'}`}>{p.breaker.replace('_', '-')}</span></td>
              <td>{p.samples > 0 ? formatMs(p.latency_p50_ms) : '—'}</td>
              <td className={p.error_rate ? 'bad-text' : undefined}>{p.samples > 0 ? `${formatPercent(p.error_rate)} of ${formatTokens(p.samples)}` : '—'}</td>
              <td className="last-error">{p.last_error ? <LastError error={p.last_error} /> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function OverviewPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const status = useStatus();
  const keys = useKeys();
  const today = todayUtc();
  const todayTotals = useQuery({ queryKey: ['usage-totals', today, today], queryFn: () => api.get<UsageTotals>(`/usage/totals?from=${today}&to=${today}`) });
  const monthTotals = useQuery({ queryKey: ['usage-totals', 'month'], queryFn: () => api.get<UsageTotals>('/usage/totals') });
  const [createdSecret, setCreatedSecret] = useState<string | null>(null);
  const [shownSecret, setShownSecret] = useState<string | null>(null);

  const createKey = useMutation({
    mutationFn: () => api.post<{ key: KeyView; secret: string }>('/keys', { name: `dashboard ${new Date().toISOString().slice(0, 10)}` }),
    onSuccess: (created) => {
      setCreatedSecret(created.secret);
      setShownSecret(created.secret);
      void queryClient.invalidateQueries({ queryKey: queryKeys.keys });
    },
  });

  const baseUrl = status.data?.base_url ?? `${window.location.origin}/v1`;
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => api.get<AgentsBody>('/agents') });
  const snippets = useMemo(() => [...buildSnippets(baseUrl, createdSecret), ...buildAgentSnippets(agents.data?.data ?? [], createdSecret)], [baseUrl, createdSecret, agents.data]);
  const providers = status.data?.providers ?? [];
  const usable = providers.filter((p) => p.enabled && !p.secret_withheld && (p.key_source !== 'none' || !p.requires_key));
  const activeKeys = (keys.data ?? []).filter((k) => k.status === 'active');

  return (
    <>
      <h1>Overview</h1>
      <ErrorNote error={status.error} />
      {status.isSuccess && usable.length === 0 ? (
        <EmptyState title="No provider can answer yet">
          <p>Add a provider key (OpenAI, Anthropic, Gemini, Groq, Together) or a local OpenAI-compatible server such as Ollama, and Patchbay can route requests to it.</p>
          <button type="button" className="button primary" onClick={() => navigate('providers')}>Go to Providers</button>
        </EmptyState>
      ) : null}

      <section className="card" aria-labelledby="connect-heading">
        <h2 id="connect-heading">Connect a client</h2>
        <div className="field-row">
          <span className="label">Base URL</span>
          <code className="inline-value">{baseUrl}</code>
          <CopyButton text={baseUrl} />
        </div>
        <div className="field-row">
          <span className="label">API key</span>
          {createdSecret ? (
            <>
              <code className="inline-value">{createdSecret}</code>
              <CopyButton text={createdSecret} />
            </>
          ) : (
            <span className="muted">
              {activeKeys.length > 0 ? `${activeKeys.length} active key${activeKeys.length > 1 ? 's' : ''} (secrets are shown only when created). ` : 'No key yet. '}
            </span>
          )}
          <button type="button" className="button" onClick={() => createKey.mutate()} disabled={createKey.isPending}>
            {createKey.isPending ? 'Creating…' : 'Create a key'}
          </button>
        </div>
        <ErrorNote error={createKey.error} />
        <Tabs.Root defaultValue={snippets[0].id} className="tabs">
          <Tabs.List aria-label="Client code" className="tab-list">
            {snippets.map((s) => (
              <Tabs.Trigger key={s.id} value={s.id} className="tab">{s.label}</Tabs.Trigger>
            ))}
          </Tabs.List>
          {snippets.map((s) => (
            <Tabs.Content key={s.id} value={s.id} className="tab-panel">
              <div className="code-head"><CopyButton text={s.code} label="Copy code" /></div>
              <pre className="code-block"><code>{s.code}</code></pre>
            </Tabs.Content>
          ))}
        </Tabs.Root>
      </section>

      <div className="grid-2">
        <TotalsCard title="Today (UTC)" totals={todayTotals.data} />
        <TotalsCard title="This month" totals={monthTotals.data} />
      </div>
      <ErrorNote error={todayTotals.error ?? monthTotals.error} />

      <section className="card" aria-labelledby="providers-heading">
        <h2 id="providers-heading">Providers</h2>
        {providers.length > 0 ? <ProviderHealth providers={providers} /> : status.isSuccess ? <p className="muted">This Patchbay does not report provider health yet.</p> : null}
      </section>
      <TelemetryPanel />
      <SecretDialog secret={shownSecret} title="Your new Patchbay key" onClose={() => setShownSecret(null)} />
    </>
  );
}
