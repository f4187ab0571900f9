import { useState, type FormEvent } from 'react';
import { newProviderSchema } from '../../../../core/management/management-schemas.ts';
import { fieldErrorsFromApi, fieldErrorsOf, type FieldErrors } from '../../components/field-errors.ts';
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
    // Core's own schema for POST /api/providers: the form refuses exactly what the server would.
    const parsed = newProviderSchema.safeParse({ name, baseUrl, ...(apiKeyEnv ? { apiKeyEnv } : {}) });
    const next: FieldErrors = parsed.success ? {} : fieldErrorsOf(parsed.error);
    if (!next.name && taken.includes(name)) next.name = `A provider named "${name}" exists already; choose another name.`;
    setErrors(next);
    if (!parsed.success || Object.keys(next).length > 0) return;
    try {
      await mutations.create.mutateAsync(parsed.data);
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
