import { Switch } from 'radix-ui';
import { useState } from 'react';
import type { ProviderModelInput, ProviderView } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorNote } from '../../components/query-state.tsx';
import { formatMs } from '../../format/format-numbers.ts';
import { BaseUrlForm } from './base-url-form.tsx';
import { invalidModelFields, ModelTable } from './model-table.tsx';
import type { ProviderMutations } from './provider-mutations.ts';
import { ProviderKeys } from './provider-keys.tsx';
import { SecretForm } from './secret-form.tsx';

/** A provider's configured models, as the editor holds them: saving replaces the whole list, so it starts from what is there. */
function CustomModels({ provider, mutations }: { provider: ProviderView; mutations: ProviderMutations }) {
  return <ModelEditor provider={provider} mutations={mutations} initial={provider.models} />;
}

function ModelEditor({ provider, mutations, initial }: { provider: ProviderView; mutations: ProviderMutations; initial: ProviderModelInput[] }) {
  const [models, setModels] = useState<ProviderModelInput[]>(initial);
  const [note, setNote] = useState<string | null>(null);
  const discover = async () => {
    const found = await mutations.discover.mutateAsync(provider.name);
    const known = new Set(models.map((m) => m.id));
    const added = found.models.filter((m) => !known.has(m.id)).map((m) => ({ id: m.id }));
    setModels([...models, ...added]);
    setNote(`Found ${found.models.length} model${found.models.length === 1 ? '' : 's'}, ${added.length} new. Save to use them.`);
  };
  const save = async () => {
    const problem = invalidModelFields(models);
    if (problem) return setNote(problem);
    await mutations.update.mutateAsync({ name: provider.name, body: { models } });
    setNote('Models saved.');
  };
  return (
    <div className="sub-section">
      <h4>Models</h4>
      <ModelTable models={models} onChange={setModels} />
      <div className="row">
        <button type="button" className="button" onClick={() => void discover().catch(() => undefined)} disabled={mutations.discover.isPending}>Discover models</button>
        <button type="button" className="button" onClick={() => setModels([...models, { id: '' }])}>Add a model</button>
        <button type="button" className="button primary" onClick={() => void save().catch(() => undefined)}>Save models</button>
      </div>
      {note ? <p aria-live="polite" className="muted">{note}</p> : null}
      <ErrorNote error={mutations.discover.error ?? mutations.update.error} />
    </div>
  );
}

export function ProviderCard({ provider, mutations }: { provider: ProviderView; mutations: ProviderMutations }) {
  const [confirmRemove, setConfirmRemove] = useState(false);
  const test = mutations.test;
  const testedThis = test.variables === provider.name;
  const switchId = `enabled-${provider.name}`;
  return (
    <section className="card provider-card" aria-labelledby={`p-${provider.name}`}>
      <div className="card-head">
        <h2 id={`p-${provider.name}`}>{provider.name}</h2>
        <span className="muted">{provider.builtin ? provider.protocol : `OpenAI-compatible (your own)`}</span>
        <div className="switch-line">
          <label htmlFor={switchId}>Enabled</label>
          <Switch.Root id={switchId} className="switch" checked={provider.enabled} onCheckedChange={(enabled) => mutations.update.mutate({ name: provider.name, body: { enabled } })}>
            <Switch.Thumb className="switch-thumb" />
          </Switch.Root>
        </div>
      </div>
      <SecretForm provider={provider} mutations={mutations} />
      <ProviderKeys provider={provider} mutations={mutations} />
      <BaseUrlForm provider={provider} mutations={mutations} />
      <div className="row">
        <button type="button" className="button" onClick={() => test.mutate(provider.name)} disabled={test.isPending && testedThis}>
          {test.isPending && testedThis ? 'Testing…' : 'Test'}
        </button>
        {testedThis && test.data ? (
          <span role="status" className={test.data.ok ? 'ok-text' : 'error-text'}>
            {test.data.ok ? 'Works' : 'Failed'}{test.data.status ? ` (${test.data.status})` : ''} in {formatMs(test.data.latency_ms)}: {test.data.message}
          </span>
        ) : null}
        {testedThis && test.error ? <ErrorNote error={test.error} /> : null}
        {!provider.builtin ? (
          <button type="button" className="button danger push-right" onClick={() => setConfirmRemove(true)}>Remove provider</button>
        ) : null}
      </div>
      {!provider.builtin ? <CustomModels provider={provider} mutations={mutations} /> : null}
      <ConfirmDialog open={confirmRemove} title={`Remove ${provider.name}?`} confirmLabel="Remove" onCancel={() => setConfirmRemove(false)} onConfirm={() => { mutations.remove.mutate(provider.name); setConfirmRemove(false); }}>
        Requests for its models will fail or fall back to other providers. Its key stays in the keychain until you delete it.
      </ConfirmDialog>
    </section>
  );
}
