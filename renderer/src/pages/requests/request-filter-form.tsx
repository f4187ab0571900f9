import type { FormEvent } from 'react';
import { useKeys, useProviders } from '../../api/shared-queries.ts';
import { NO_FILTERS, STATUS_FILTERS, type RequestFilters } from './request-filters.ts';

/** What the Model field matches on the page that uses the form (the log and the sessions match differently). */
export interface ModelField {
  placeholder: string;
  title: string;
}

/** The filter bar the Requests and Sessions pages share: status, model, provider, key and dates. */
export function RequestFilterForm({ label, model, onApply }: { label: string; model: ModelField; onApply: (filters: RequestFilters) => void }) {
  const providers = useProviders();
  const keys = useKeys();
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onApply(Object.fromEntries(Object.keys(NO_FILTERS).map((k) => [k, String(form.get(k) ?? '').trim()])) as unknown as RequestFilters);
  };
  return (
    <form className="filters" onSubmit={apply} aria-label={label}>
      <label>Status<select name="status" defaultValue="">{STATUS_FILTERS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}</select></label>
      <label>Model<input name="model" placeholder={model.placeholder} title={model.title} /></label>
      <label>Provider<select name="provider" defaultValue=""><option value="">any</option>{(providers.data ?? []).map((p) => <option key={p.name}>{p.name}</option>)}</select></label>
      <label>Key<select name="key_id" defaultValue=""><option value="">any</option>{(keys.data ?? []).map((k) => <option key={k.id} value={k.id}>{k.name}</option>)}</select></label>
      <label>From<input name="from" type="date" /></label>
      <label>To<input name="to" type="date" /></label>
      <button type="submit" className="button primary">Apply</button>
    </form>
  );
}

/** Whether any filter is set (the empty state then says "no match" rather than "nothing yet"). */
export const hasFilters = (filters: RequestFilters) => Object.values(filters).some(Boolean);
