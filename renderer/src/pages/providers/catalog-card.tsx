import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/api-client.ts';
import { queryKeys } from '../../api/shared-queries.ts';
import type { CatalogStatus } from '../../api/types.ts';
import { ErrorNote } from '../../components/query-state.tsx';

/** How old the prices are, where they come from, what each provider's own list added; a button fetches the newest table. */
export function CatalogCard() {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ['catalog'], queryFn: () => api.get<CatalogStatus>('/catalog'), staleTime: 60_000 });
  const update = useMutation({
    mutationFn: () => api.post<{ summary: string }>('/catalog/update'),
    onSuccess: () => Promise.all([['catalog'], queryKeys.models].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
  const data = status.data;
  const source = data?.sources?.[0];
  return (
    <section className="card" aria-labelledby="catalog-heading">
      <h2 id="catalog-heading">Models and prices</h2>
      {data ? (
        <p>
          Prices as of <strong>{data.prices_as_of}</strong>
          {source ? ` (${source.name} ${source.version})` : ''}
          {data.updated ? ', updated while running' : ', as shipped'}.{' '}
          {data.discovered.length > 0
            ? `The providers' own lists add their newest models: ${data.discovered.map((d) => `${d.provider} ${d.models}${d.error ? ' (last read failed)' : ''}`).join(', ')}.`
            : ''}
        </p>
      ) : null}
      <button type="button" className="button" onClick={() => update.mutate()} disabled={update.isPending}>
        {update.isPending ? 'Updating…' : 'Update prices'}
      </button>
      {update.data ? <p role="status">Updated: {update.data.summary}.</p> : null}
      <ErrorNote error={status.error ?? update.error} />
    </section>
  );
}
