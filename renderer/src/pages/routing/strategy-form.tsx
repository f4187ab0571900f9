import { RadioGroup } from 'radix-ui';
import { useState, type FormEvent } from 'react';
import { STRATEGIES } from '../../../../core/config/config-schema.ts';
import { routingSettingsSchema } from '../../../../core/management/management-schemas.ts';
import type { RoutingBody } from '../../api/types.ts';
import { fieldErrorsFromApi, fieldErrorsOf, type FieldErrors } from '../../components/field-errors.ts';

const DESCRIPTIONS: Record<string, string> = {
  balanced: 'Weighs latency, cost and availability (the weights below).',
  latency: 'The fastest provider first (p50 over recent requests).',
  cost: 'The cheapest provider first (list prices).',
  availability: 'The provider with the best recent success rate first.',
  'round-robin': 'Takes turns among the healthy providers.',
};
const WEIGHTS = ['latency', 'cost', 'availability'] as const;

export function StrategyForm({ routing, onSave }: { routing: RoutingBody; onSave: (body: unknown) => Promise<unknown> }) {
  const [strategy, setStrategy] = useState<string>(routing.strategy);
  const [weights, setWeights] = useState<Record<string, string>>(Object.fromEntries(WEIGHTS.map((w) => [w, String(routing.weights[w])])));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = { strategy, weights: Object.fromEntries(WEIGHTS.map((w) => [w, weights[w].trim() === '' ? Number.NaN : Number(weights[w])])) };
    const parsed = routingSettingsSchema.safeParse(body);
    if (!parsed.success) {
      setSaved(false);
      // Name the weight itself where the issue is about one (weights.cost), the group otherwise.
      const next: FieldErrors = {};
      for (const issue of parsed.error.issues) next[issue.path.length > 1 ? String(issue.path[1]) : String(issue.path[0] ?? '_form')] ??= issue.message;
      return setErrors(Object.keys(next).length ? next : fieldErrorsOf(parsed.error));
    }
    try {
      await onSave(body);
      setErrors({});
      setSaved(true);
    } catch (error) {
      setErrors(fieldErrorsFromApi(error));
    }
  };

  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="strategy-heading">
      <h2 id="strategy-heading">Default strategy</h2>
      <RadioGroup.Root className="radio-group" value={strategy} onValueChange={setStrategy} aria-label="Default strategy">
        {STRATEGIES.map((s) => (
          <div key={s} className="radio-line">
            <RadioGroup.Item value={s} id={`strategy-${s}`} className="radio">
              <RadioGroup.Indicator className="radio-dot" />
            </RadioGroup.Item>
            <label htmlFor={`strategy-${s}`}><strong>{s}</strong> <span className="muted">{DESCRIPTIONS[s]}</span></label>
          </div>
        ))}
      </RadioGroup.Root>
      <fieldset className="weights">
        <legend>Balanced weights</legend>
        {WEIGHTS.map((w) => (
          <label key={w}>
            {w}
            <input type="number" min={0} step={0.1} value={weights[w]} onChange={(e) => setWeights({ ...weights, [w]: e.target.value })} aria-invalid={errors[w] ? true : undefined} aria-describedby={errors[w] ? `w-${w}-error` : undefined} />
            {errors[w] ? <span className="field-error" id={`w-${w}-error`}>{errors[w]}</span> : null}
          </label>
        ))}
        {errors.weights ? <p role="alert" className="error-text">Weights: {errors.weights}</p> : null}
      </fieldset>
      {errors._form ?? errors.strategy ? <p role="alert" className="error-text">{errors._form ?? errors.strategy}</p> : null}
      <div className="row">
        <button type="submit" className="button primary">Save strategy</button>
        {saved ? <span role="status" className="ok-text">Saved.</span> : null}
      </div>
    </form>
  );
}
