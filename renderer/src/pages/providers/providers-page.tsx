import { useProviders } from '../../api/shared-queries.ts';
import { EmptyState, ErrorNote } from '../../components/query-state.tsx';
import { AddProviderForm } from './add-provider-form.tsx';
import { CatalogCard } from './catalog-card.tsx';
import { ProviderCard } from './provider-card.tsx';
import { useProviderMutations } from './provider-mutations.ts';

export default function ProvidersPage() {
  const providers = useProviders();
  const mutations = useProviderMutations();
  const list = providers.data ?? [];
  const noKeys = providers.isSuccess && !list.some((p) => p.key_source !== 'none' || !p.requires_key);
  return (
    <>
      <h1>Providers</h1>
      <ErrorNote error={providers.error ?? mutations.update.error ?? mutations.deleteSecret.error ?? mutations.deleteLabelledSecret.error ?? mutations.remove.error} />
      {noKeys ? (
        <EmptyState title="No provider keys yet">
          <p>Paste a key from your OpenAI, Anthropic, Google AI Studio, Groq or Together account into its card below. It is stored in your OS keychain and never shown again. Or add a local server (Ollama, LM Studio, vLLM) at the bottom: it needs no key.</p>
        </EmptyState>
      ) : null}
      {list.map((p) => (
        <ProviderCard key={p.name} provider={p} mutations={mutations} />
      ))}
      <CatalogCard />
      <section className="card" aria-labelledby="add-provider">
        <h2 id="add-provider">Add an OpenAI-compatible provider</h2>
        <AddProviderForm mutations={mutations} taken={list.map((p) => p.name)} />
      </section>
    </>
  );
}
