import { useState, type FormEvent } from 'react';
import { providerSecretSchema } from '../../../../core/management/management-schemas.ts';
import type { ProviderView } from '../../api/types.ts';
import { fieldErrorsFromApi, fieldErrorsOf } from '../../components/field-errors.ts';
import type { ProviderMutations } from './provider-mutations.ts';

/** Write-only: the secret goes to the OS keychain through core and is never shown or returned again. */
export function SecretForm({ provider, mutations }: { provider: ProviderView; mutations: ProviderMutations }) {
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const id = `secret-${provider.name}`;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const secret = String(new FormData(form).get('secret') ?? '');
    const parsed = providerSecretSchema.safeParse({ secret });
    if (!parsed.success) {
      setError(fieldErrorsOf(parsed.error).secret ?? parsed.error.issues[0].message);
      return;
    }
    try {
      await mutations.setSecret.mutateAsync({ name: provider.name, secret });
      form.reset();
      setError(null);
      setSaved(true);
    } catch (e) {
      const errors = fieldErrorsFromApi(e);
      setError(errors.secret ?? errors._form ?? Object.values(errors)[0] ?? 'Saving failed.');
    }
  };

  // This form is the unlabelled ("default") key's; labelled keys have their own (provider-keys.tsx).
  const source = provider.keys.find((k) => k.label === 'default')?.source ?? 'none';
  const state =
    source === 'keychain' ? 'set (from keychain)' : source === 'env' ? 'set (from an environment variable, which overrides the keychain)' : provider.requires_key ? 'not set' : 'not needed';
  return (
    <form className="inline-form" onSubmit={submit} noValidate>
      <div className="label-line">
        <label htmlFor={id}>API key</label>
        <span className="muted" aria-live="polite">{provider.secret_withheld ? 'withheld' : state}{saved && source === 'keychain' ? ' · saved' : ''}</span>
      </div>
      <div className="row">
        <input id={id} name="secret" type="password" autoComplete="off" placeholder={source === 'none' ? 'Paste the provider key' : 'Paste a new key to replace it'} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
        <button type="submit" className="button" disabled={mutations.setSecret.isPending}>{source === 'keychain' ? 'Replace' : 'Save'}</button>
        {source === 'keychain' ? (
          <button type="button" className="button danger" onClick={() => mutations.deleteSecret.mutate(provider.name)}>Delete key</button>
        ) : null}
      </div>
      {error ? <span className="field-error" id={`${id}-error`}>{error}</span> : null}
    </form>
  );
}
