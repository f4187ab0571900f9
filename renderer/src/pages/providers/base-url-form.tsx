import { useState, type FormEvent } from 'react';
import { providerSettingsSchema } from '../../../../core/management/management-schemas.ts';
import type { ProviderView } from '../../api/types.ts';
import { fieldErrorsFromApi, fieldErrorsOf } from '../../components/field-errors.ts';
import type { ProviderMutations } from './provider-mutations.ts';

export function BaseUrlForm({ provider, mutations }: { provider: ProviderView; mutations: ProviderMutations }) {
  const [error, setError] = useState<string | null>(null);
  const id = `base-${provider.name}`;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const baseUrl = String(new FormData(event.currentTarget).get('baseUrl') ?? '').trim();
    const parsed = providerSettingsSchema.safeParse({ baseUrl });
    if (!parsed.success) {
      setError(fieldErrorsOf(parsed.error).baseUrl ?? parsed.error.issues[0].message);
      return;
    }
    try {
      await mutations.update.mutateAsync({ name: provider.name, body: { baseUrl } });
      setError(null);
    } catch (e) {
      setError(Object.values(fieldErrorsFromApi(e))[0] ?? 'Saving failed.');
    }
  };
  return (
    <form className="inline-form" onSubmit={submit} noValidate>
      <label htmlFor={id}>Base URL</label>
      <div className="row">
        <input id={id} name="baseUrl" defaultValue={provider.base_url} key={provider.base_url} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
        <button type="submit" className="button">Save URL</button>
      </div>
      {error ? <span className="field-error" id={`${id}-error`}>Base URL {error}</span> : null}
      {provider.secret_withheld ? (
        <p className="warning" role="note">
          The key is withheld: Patchbay does not send it to this base URL. {provider.notice}
        </p>
      ) : null}
    </form>
  );
}
