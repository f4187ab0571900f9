import { useState, type FormEvent } from 'react';
import { providerSettingsSchema } from '../../../../core/management/management-schemas.ts';
import { fieldErrorsFromApi, type FieldErrors } from '../../components/field-errors.ts';
import type { ProviderMutations } from './provider-mutations.ts';

const PRESETS = [
  { name: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: 'lmstudio', label: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { name: 'vllm', label: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' },
];

/** Adds a user-defined OpenAI-compatible provider; its models are discovered on its card afterwards. */
export function AddProviderForm({ mutations, taken }: { mutations: ProviderMutations; taken: string[] }) {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKeyEnv, setApiKeyEnv] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next: FieldErrors = {};
    // TODO(core-types): validate with core's create-provider schema once it is exported.
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) next.name = 'Use lowercase letters, digits and dashes, e.g. "ollama".';
    else if (taken.includes(name)) next.name = `A provider named "${name}" exists already.`;
    const url = providerSettingsSchema.shape.baseUrl.safeParse(baseUrl);
    if (!url.success) next.baseUrl = url.error.issues[0].message;
    if (apiKeyEnv && !/^[A-Z_][A-Z0-9_]*$/.test(apiKeyEnv)) next.apiKeyEnv = 'An environment variable name such as MY_LLM_KEY.';
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    try {
      await mutations.create.mutateAsync({ name, baseUrl, ...(apiKeyEnv ? { apiKeyEnv } : {}) });
      setName('');
      setBaseUrl('');
      setApiKeyEnv('');
    } catch (error) {
      setErrors(fieldErrorsFromApi(error));
    }
  };
  const err = (field: string) => (errors[field] ? <span className="field-error" id={`add-${field}-error`}>{errors[field]}</span> : null);
  const aria = (field: string) => ({ 'aria-invalid': errors[field] ? true : undefined, 'aria-describedby': errors[field] ? `add-${field}-error` : undefined });

  return (
    <form className="form-grid" onSubmit={submit} noValidate aria-label="Add an OpenAI-compatible provider">
      <div className="span-2 row">
        <span className="muted">Presets:</span>
        {PRESETS.map((p) => (
          <button key={p.name} type="button" className="button small" onClick={() => { setName(p.name); setBaseUrl(p.baseUrl); }}>
            {p.label}
          </button>
        ))}
      </div>
      <label>Name<input value={name} onChange={(e) => setName(e.target.value)} {...aria('name')} />{err('name')}</label>
      <label>Base URL<input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://127.0.0.1:11434/v1" {...aria('baseUrl')} />{err('baseUrl')}</label>
      <label>Key from environment variable (optional)<input value={apiKeyEnv} onChange={(e) => setApiKeyEnv(e.target.value)} {...aria('apiKeyEnv')} />{err('apiKeyEnv')}</label>
      {errors._form ? <p role="alert" className="error-text span-2">{errors._form}</p> : null}
      <div className="span-2"><button type="submit" className="button primary" disabled={mutations.create.isPending}>Add provider</button></div>
    </form>
  );
}
