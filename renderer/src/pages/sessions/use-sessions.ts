import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, toQuery } from '../../api/api-client.ts';
import type { RequestLogPage, SessionPage, SessionRow } from '../../api/types.ts';
import type { RequestFilters } from '../requests/request-filters.ts';

const PAGE = 50;

/** Sessions active in the range, the most recently active first, paged by cursor (GET /api/usage/sessions). */
export function useSessions(filters: RequestFilters) {
  const query = useInfiniteQuery({
    queryKey: ['sessions', filters],
    queryFn: ({ pageParam, signal }) => api.get<SessionPage>(`/usage/sessions${toQuery({ limit: PAGE, cursor: pageParam, ...filters })}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  return { ...query, rows: query.data?.pages.flatMap((p) => p.data) ?? [] };
}

/** One session's requests, newest first (GET /api/usage/requests?session=ID&key_id=KEY: a session is its key's), within the page's range. */
export function useSessionRequests(session: Pick<SessionRow, 'session_id' | 'key_id'> | null, filters: RequestFilters) {
  return useQuery({
    queryKey: ['session-requests', session?.session_id ?? null, session?.key_id ?? null, filters.from, filters.to],
    queryFn: ({ signal }) => api.get<RequestLogPage>(`/usage/requests${toQuery({ session: session?.session_id, key_id: session?.key_id ?? undefined, limit: 200, from: filters.from, to: filters.to })}`, { signal }),
    enabled: session !== null,
  });
}
