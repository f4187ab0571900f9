import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/api-client.ts';
import type { TelemetryBody } from '../../api/types.ts';
import { ErrorNote } from '../../components/query-state.tsx';
import { formatLogTime } from '../../format/format-numbers.ts';

const TELEMETRY_KEY = ['telemetry'] as const;

/**
 * OpenTelemetry export: whether it is on, where it goes, how the last export went, and the switch
 * (saved in the config file, which wins over the OTEL_* environment). Headers (credentials) are set
 * in the file or the environment and never shown here.
 */
export function TelemetryPanel() {
  const queryClient = useQueryClient();
  const telemetry = useQuery({ queryKey: TELEMETRY_KEY, queryFn: () => api.get<TelemetryBody>('/telemetry'), refetchInterval: 10_000 });
  const save = useMutation({
    mutationFn: (body: { enabled: boolean; endpoint?: string }) => api.put<TelemetryBody>('/telemetry', body),
    onSuccess: (next) => queryClient.setQueryData(TELEMETRY_KEY, next),
  });
  const [endpoint, setEndpoint] = useState('');
  const data = telemetry.data;
  const otlp = data?.otlp ?? null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ enabled: true, ...(endpoint.trim() ? { endpoint: endpoint.trim() } : {}) });
  };
  return (
    <section className="card" aria-labelledby="telemetry-heading">
      <h2 id="telemetry-heading">OpenTelemetry export {otlp ? <span className="badge ok">on</span> : <span className="badge">off</span>}</h2>
      <ErrorNote error={telemetry.error} />
      {otlp ? (
        <>
          <p>
            Traces{otlp.metrics ? ' and metrics' : ''} go to <code className="inline-value">{otlp.endpoint}</code> over {otlp.protocol}
            {otlp.source === 'environment' ? ' (set by OTEL_EXPORTER_OTLP_ENDPOINT)' : ''}.
          </p>
          <p role="status">
            {data?.lastExport?.lastError ? (
              <>
                <span className="badge bad">export failing</span> {data.lastExport.lastErrorAt ? formatLogTime(new Date(data.lastExport.lastErrorAt).toISOString()) : ''} · {data.lastExport.lastError}
              </>
            ) : data?.lastExport?.lastSuccessAt ? (
              <>Last export {formatLogTime(new Date(data.lastExport.lastSuccessAt).toISOString())}.</>
            ) : (
              <span className="muted">Nothing exported yet: spans go out in batches every few seconds.</span>
            )}
          </p>
          <button type="button" className="button" disabled={save.isPending} onClick={() => save.mutate({ enabled: false })}>
            Turn export off
          </button>
        </>
      ) : (
        <form onSubmit={submit} className="field-row">
          <label className="label" htmlFor="otlp-endpoint">Collector (OTLP/HTTP)</label>
          <input id="otlp-endpoint" type="url" placeholder="http://localhost:4318" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} />
          <button type="submit" className="button primary" disabled={save.isPending}>Turn export on</button>
        </form>
      )}
      <ErrorNote error={save.error} />
      <p className="muted">
        {data?.prometheus ? <>Prometheus scrapes <code>{data.prometheus.url}</code> with the token in <code>{data.prometheus.tokenFile}</code>. </> : 'Prometheus metrics (GET /metrics) are off; telemetry.prometheus in the config file turns them on. '}
        GenAI semantic conventions {data?.semconvVersion}; prompts and answers are {data?.captureContent ? 'included in spans' : 'never exported'}.
      </p>
    </section>
  );
}
