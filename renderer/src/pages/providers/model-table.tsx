import type { ProviderModelInput } from '../../api/types.ts';

/** Editable models of a user-defined provider: context window and prices per million tokens. */
export function ModelTable({ models, onChange }: { models: ProviderModelInput[]; onChange: (models: ProviderModelInput[]) => void }) {
  const set = (i: number, field: 'id' | 'contextWindow' | 'inputPrice' | 'outputPrice', raw: string) => {
    const next = models.map((m, j) => {
      if (j !== i) return m;
      const copy: ProviderModelInput = { ...m };
      if (field === 'id') copy.id = raw;
      else if (raw.trim() === '') delete copy[field];
      else copy[field] = Number(raw);
      return copy;
    });
    onChange(next);
  };
  if (models.length === 0) return <p className="muted">No models yet: discover them from the server, or add one by id.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr><th scope="col">Model</th><th scope="col">Context window</th><th scope="col">Input $/1M</th><th scope="col">Output $/1M</th><th scope="col"><span className="visually-hidden">Remove</span></th></tr>
        </thead>
        <tbody>
          {models.map((m, i) => (
            <tr key={i}>
              <td><input aria-label={`Model ${i + 1} id`} value={m.id} onChange={(e) => set(i, 'id', e.target.value)} /></td>
              <td><input aria-label={`${m.id} context window`} inputMode="numeric" value={m.contextWindow ?? ''} onChange={(e) => set(i, 'contextWindow', e.target.value)} /></td>
              <td><input aria-label={`${m.id} input price`} inputMode="decimal" value={m.inputPrice ?? ''} onChange={(e) => set(i, 'inputPrice', e.target.value)} /></td>
              <td><input aria-label={`${m.id} output price`} inputMode="decimal" value={m.outputPrice ?? ''} onChange={(e) => set(i, 'outputPrice', e.target.value)} /></td>
              <td><button type="button" className="button small" aria-label={`Remove ${m.id}`} onClick={() => onChange(models.filter((_, j) => j !== i))}>Remove</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Numbers the user typed that are not numbers, named for the message. */
export function invalidModelFields(models: ProviderModelInput[]): string | null {
  for (const m of models) {
    if (!m.id.trim()) return 'Every model needs an id.';
    for (const [field, label] of [['contextWindow', 'context window'], ['inputPrice', 'input price'], ['outputPrice', 'output price']] as const) {
      const v = m[field];
      if (v !== undefined && (!Number.isFinite(v) || v < 0)) return `${m.id}: the ${label} must be a number of 0 or more.`;
    }
  }
  return null;
}
