import { useState, type FormEvent } from 'react';
import { providerKeyLabelSchema, providerSecretSchema } from '../../../../core/management/management-schemas.ts';
import type { ProviderKeyView, ProviderView } from '../../api/types.ts';
import { fieldErrorsFromApi, fieldErrorsOf } from '../../components/field-errors.ts';
import type { ProviderMutations } from './provider-mutations.ts';

/** A key's state in words: ready, resting until when and why, or withheld. */
function keyState(key: ProviderKeyView): string {
  if (key.withheld) return 'withheld (base URL moved)';
  if (!key.resting_until) return 'ready';
  const until = key.resting_until.startsWith('until') ? key.resting_until : `until ${new Date(key.resting_until).toLocaleTimeString()}`;
  return `resting ${until}: ${key.rest_reason ?? ''}`;
}

/**
 * The provider's keys by label (never a key), each with its health, and the way requests use
 * them; a labelled key is added or replaced (the same label again) and deleted here.
 */
export function ProviderKeys({ provider, mutations }: { provider: ProviderView; mutations: ProviderMutations }) {
  const keys = provider.keys;
  const orderId = `key-order-${provider.name}`;
  return (
    <div className="sub-section">
      <h3>Keys</h3>
      {keys.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">{provider.name} keys</caption>
            <thead>
              <tr><th scope="col">Label</th><th scope="col">From</th><th scope="col">State</th><th scope="col">Requests since start</th><th scope="col">Last error</th><th scope="col"><span className="visually-hidden">Delete</span></th></tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.label}>
                  <td>{key.label}</td>
                  <td>{key.source}</td>
                  <td>{keyState(key)}</td>
                  <td>{key.requests_since_start}</td>
                  <td>{key.last_error ? `${key.last_error.status}: ${key.last_error.message}` : '—'}</td>
                  <td>
                    {key.label !== 'default' ? (
                      <button type="button" className="button small danger" aria-label={`Delete key ${key.label}`} onClick={() => mutations.deleteLabelledSecret.mutate({ name: provider.name, label: key.label })}>Delete</button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {keys.length > 1 ? (
        <div className="row">
          <label htmlFor={orderId}>Use the keys</label>
          <select id={orderId} value={provider.key_order} onChange={(e) => mutations.update.mutate({ name: provider.name, body: { keyOrder: e.target.value as ProviderView['key_order'] } })}>
            <option value="ordered">in order (the next when one rests)</option>
            <option value="spread">spread across them</option>
          </select>
        </div>
      ) : null}
      <LabelledKeyForm provider={provider} mutations={mutations} />
    </div>
  );
}

/** Adds a key under a label, or replaces the key under a label that exists. Write-only, like the default key's form. */
function LabelledKeyForm({ provider, mutations }: { provider: ProviderView; mutations: ProviderMutations }) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<string | null>(null);
  const id = `labelled-${provider.name}`;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const label = String(data.get('label') ?? '').trim();
    const secret = String(data.get('secret') ?? '');
    const labelCheck = providerKeyLabelSchema.safeParse({ label });
    const secretCheck = providerSecretSchema.safeParse({ secret });
    const found = { ...(labelCheck.success ? {} : fieldErrorsOf(labelCheck.error)), ...(secretCheck.success ? {} : fieldErrorsOf(secretCheck.error)) };
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      await mutations.setLabelledSecret.mutateAsync({ name: provider.name, label, secret });
      form.reset();
      setSaved(label);
    } catch (e) {
      setErrors(fieldErrorsFromApi(e));
    }
  };
  const described = (field: string) => (errors[field] ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-${field}-error` } : {});
  return (
    <form className="inline-form" onSubmit={submit} noValidate>
      <div className="row">
        <label htmlFor={`${id}-label`}>Key label</label>
        <input id={`${id}-label`} name="label" autoComplete="off" placeholder="work" {...described('label')} />
        <label htmlFor={`${id}-secret`}>Labelled key</label>
        <input id={`${id}-secret`} name="secret" type="password" autoComplete="off" placeholder="Paste a key" {...described('secret')} />
        <button type="submit" className="button" disabled={mutations.setLabelledSecret.isPending}>Save labelled key</button>
      </div>
      {errors.label ? <span className="field-error" id={`${id}-label-error`}>Label {errors.label}</span> : null}
      {errors.secret ? <span className="field-error" id={`${id}-secret-error`}>{errors.secret}</span> : null}
      {errors._form ? <span className="field-error">{errors._form}</span> : null}
      {saved ? <p className="muted" aria-live="polite">Key "{saved}" saved.</p> : null}
    </form>
  );
}
