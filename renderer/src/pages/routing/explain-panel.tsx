import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { STRATEGIES } from '../../../../core/config/config-schema.ts';
import { REQUEST_CLASSES } from '../../../../core/config/route-rule-schema.ts';
import { explainRouteSchema } from '../../../../core/management/management-schemas.ts';
import { api } from '../../api/api-client.ts';
import { useModels } from '../../api/shared-queries.ts';
import type { ExplainRouteInput, RouteExplanation } from '../../api/types.ts';
import { fieldErrorsOf, type FieldErrors } from '../../components/field-errors.ts';
import { ErrorNote } from '../../components/query-state.tsx';
import { ExplainResultView } from './explain-result.tsx';

type Need = NonNullable<ExplainRouteInput['needs']>[number];

/** "Which provider now?": what the router would do for a request like this, without sending one. */
export function ExplainPanel() {
  const models = useModels();
  const [model, setModel] = useState('');
  const [strategy, setStrategy] = useState('');
  const [stream, setStream] = useState(false);
  const [needs, setNeeds] = useState<Need[]>([]);
  const [requestClass, setRequestClass] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const explain = useMutation({ mutationFn: (input: ExplainRouteInput) => api.post<RouteExplanation>('/routing/explain', input) });
  const ids = [...new Set((models.data ?? []).map((m) => m.id))];
  const chosen = model || ids[0] || '';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    // Core's schema for POST /api/routing/explain: a model id the server would refuse is named here, not in a 400.
    const parsed = explainRouteSchema.safeParse({ model: chosen, stream, ...(strategy ? { strategy } : {}), ...(needs.length ? { needs } : {}), ...(requestClass ? { request_class: requestClass } : {}) });
    setErrors(parsed.success ? {} : fieldErrorsOf(parsed.error));
    if (parsed.success) explain.mutate(parsed.data);
  };
  const toggle = (need: Need, on: boolean) => setNeeds((list) => (on ? [...list, need] : list.filter((n) => n !== need)));

  return (
    <section className="card" aria-labelledby="explain-heading">
      <h2 id="explain-heading">Which provider now?</h2>
      <form className="row wrap" onSubmit={submit}>
        <label>
          Model
          <select value={chosen} onChange={(e) => setModel(e.target.value)}>
            {ids.map((id) => <option key={id} value={id}>{id}</option>)}
          </select>
        </label>
        <label>
          Strategy
          <select value={strategy} onChange={(e) => setStrategy(e.target.value)}>
            <option value="">default</option>
            {STRATEGIES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>
          Request class
          <select value={requestClass} onChange={(e) => setRequestClass(e.target.value)}>
            <option value="">not said</option>
            {REQUEST_CLASSES.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        <label className="check"><input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} /> stream</label>
        <label className="check"><input type="checkbox" checked={needs.includes('tools')} onChange={(e) => toggle('tools', e.target.checked)} /> needs tools</label>
        <label className="check"><input type="checkbox" checked={needs.includes('images')} onChange={(e) => toggle('images', e.target.checked)} /> needs images</label>
        <button type="submit" className="button primary" disabled={!chosen || explain.isPending}>Explain</button>
      </form>
      {Object.entries(errors).map(([field, message]) => <p key={field} role="alert" className="error-text">{field}: {message}</p>)}
      <ErrorNote error={explain.error} />
      {explain.data ? <ExplainResultView result={explain.data} /> : null}
    </section>
  );
}
