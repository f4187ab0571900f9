import { useId, useState, type FormEvent } from 'react';
import { createKeySchema, keySettingsSchema } from '../../../../core/management/management-schemas.ts';
import type { KeySettingsInput, KeyView } from '../../api/types.ts';
import { fieldErrorsFromApi, fieldErrorsOf, type FieldErrors } from '../../components/field-errors.ts';
import type { ManagedModel } from '../../api/types.ts';

export type CreateKeyInput = KeySettingsInput & { name: string };

interface Props {
  models: ManagedModel[];
  onSubmit: (input: CreateKeyInput) => Promise<unknown>;
  /** Edit this key (PATCH): the fields start from its settings, and a cleared field removes that limit. */
  editing?: KeyView;
}

const NUMBER_FIELDS = [
  { name: 'rpm_limit', label: 'Requests per minute' },
  { name: 'tpm_limit', label: 'Tokens per minute' },
  { name: 'monthly_token_cap', label: 'Monthly token cap' },
  { name: 'monthly_usd_cap', label: 'Monthly USD cap' },
] as const;

/**
 * Empty inputs mean "no limit": omitted when creating, null (remove the limit) when editing; anything
 * typed goes to the schema as a number so its message applies.
 */
function toBody(form: FormData, allowed: string[], editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { name: String(form.get('name') ?? '').trim() };
  const expires = String(form.get('expires_at') ?? '');
  if (expires) body.expires_at = expires;
  else if (editing) body.expires_at = null;
  if (allowed.length > 0) body.allowed_models = allowed;
  else if (editing) body.allowed_models = null;
  for (const { name } of NUMBER_FIELDS) {
    const raw = String(form.get(name) ?? '').trim();
    if (raw !== '') body[name] = Number(raw);
    else if (editing) body[name] = null;
  }
  return body;
}

/** Creates a key, or edits one; validated by core's own schemas, so the form and the API agree. */
export function KeyForm({ models, onSubmit, editing }: Props) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [allowed, setAllowed] = useState<string[]>(editing?.allowed_models ?? []);
  const [busy, setBusy] = useState(false);
  // Error ids unique per form: the edit dialog's form and the create form can be on the page at once.
  const formId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const body = toBody(new FormData(formElement), allowed, editing !== undefined);
    const parsed = (editing ? keySettingsSchema.extend({ name: createKeySchema.shape.name }) : createKeySchema).safeParse(body);
    if (!parsed.success) {
      setErrors(fieldErrorsOf(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      // The API takes the date as typed; the schema's transform (to epoch ms) is the server's business.
      await onSubmit(body as CreateKeyInput);
      if (!editing) {
        formElement.reset();
        setAllowed([]);
      }
    } catch (error) {
      setErrors(fieldErrorsFromApi(error));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (name: string) =>
    errors[name] ? (
      <span className="field-error" id={`${formId}${name}-error`}>
        {errors[name]}
      </span>
    ) : null;
  const invalid = (name: string) => ({ 'aria-invalid': errors[name] ? true : undefined, 'aria-describedby': errors[name] ? `${formId}${name}-error` : undefined });

  return (
    <form className="form-grid" onSubmit={submit} noValidate aria-label={editing ? `Edit key ${editing.name}` : 'Create a key'}>
      <label>
        Name
        <input name="name" autoComplete="off" defaultValue={editing?.name} {...invalid('name')} />
        {fieldError('name')}
      </label>
      <label>
        Expires on (optional)
        <input name="expires_at" type="date" defaultValue={editing?.expires_at?.slice(0, 10)} {...invalid('expires_at')} />
        {fieldError('expires_at')}
      </label>
      {NUMBER_FIELDS.map((f) => (
        <label key={f.name}>
          {f.label} ({editing ? 'empty: none' : 'optional'})
          <input name={f.name} inputMode="decimal" defaultValue={editing?.[f.name] ?? undefined} {...invalid(f.name)} />
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
          {editing ? (busy ? 'Saving…' : 'Save changes') : busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}
