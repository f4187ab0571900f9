import { useState, type FormEvent } from 'react';
import { createKeySchema } from '../../../../core/management/management-schemas.ts';
import type { KeySettingsInput } from '../../api/types.ts';
import { fieldErrorsFromApi, fieldErrorsOf, type FieldErrors } from '../../components/field-errors.ts';
import type { ManagedModel } from '../../api/types.ts';

export type CreateKeyInput = KeySettingsInput & { name: string };

interface Props {
  models: ManagedModel[];
  onSubmit: (input: CreateKeyInput) => Promise<unknown>;
}

const NUMBER_FIELDS = [
  { name: 'rpm_limit', label: 'Requests per minute' },
  { name: 'tpm_limit', label: 'Tokens per minute' },
  { name: 'monthly_token_cap', label: 'Monthly token cap' },
  { name: 'monthly_usd_cap', label: 'Monthly USD cap' },
] as const;

/** Empty inputs mean "no limit" (omitted); anything typed goes to the schema as a number so its message applies. */
function toBody(form: FormData, allowed: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = { name: String(form.get('name') ?? '').trim() };
  const expires = String(form.get('expires_at') ?? '');
  if (expires) body.expires_at = expires;
  if (allowed.length > 0) body.allowed_models = allowed;
  for (const { name } of NUMBER_FIELDS) {
    const raw = String(form.get(name) ?? '').trim();
    if (raw !== '') body[name] = Number(raw);
  }
  return body;
}

/** Creates a key; validated by core's own createKeySchema, so the form and the API agree. */
export function KeyForm({ models, onSubmit }: Props) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [allowed, setAllowed] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const body = toBody(new FormData(formElement), allowed);
    const parsed = createKeySchema.safeParse(body);
    if (!parsed.success) {
      setErrors(fieldErrorsOf(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      // The API takes the date as typed; the schema's transform (to epoch ms) is the server's business.
      await onSubmit(body as CreateKeyInput);
      formElement.reset();
      setAllowed([]);
    } catch (error) {
      setErrors(fieldErrorsFromApi(error));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (name: string) =>
    errors[name] ? (
      <span className="field-error" id={`${name}-error`}>
        {errors[name]}
      </span>
    ) : null;
  const invalid = (name: string) => ({ 'aria-invalid': errors[name] ? true : undefined, 'aria-describedby': errors[name] ? `${name}-error` : undefined });

  return (
    <form className="form-grid" onSubmit={submit} noValidate aria-label="Create a key">
      <label>
        Name
        <input name="name" autoComplete="off" {...invalid('name')} />
        {fieldError('name')}
      </label>
      <label>
        Expires on (optional)
        <input name="expires_at" type="date" {...invalid('expires_at')} />
        {fieldError('expires_at')}
      </label>
      {NUMBER_FIELDS.map((f) => (
        <label key={f.name}>
          {f.label} (optional)
          <input name={f.name} inputMode="decimal" {...invalid(f.name)} />
          {fieldError(f.name)}
        </label>
      ))}
      <fieldset className="span-2">
        <legend>Allowed models (none checked: all models)</legend>
        <div className="check-list">
          {[...new Set(models.map((m) => m.id))].map((id) => (
            <label key={id} className="check">
              <input
                type="checkbox"
                checked={allowed.includes(id)}
                onChange={(e) => setAllowed((list) => (e.target.checked ? [...list, id] : list.filter((x) => x !== id)))}
              />
              {id}
            </label>
          ))}
        </div>
        {fieldError('allowed_models')}
      </fieldset>
      {errors._form ? <p role="alert" className="error-text span-2">{errors._form}</p> : null}
      <div className="span-2">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}
