import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, toQuery } from '../../api/api-client.ts';
import type { RequestLogPage, RequestRow } from '../../api/types.ts';
import { mergeLiveRow, type RequestFilters } from './request-filters.ts';

const PAGE = 50;

/**
 * The request log, newest first, paged by cursor, and kept live from /api/events while mounted:
 * new rows go into the query cache itself, so the cache stays the one copy of the log.
 */
export function useRequestLog(filters: RequestFilters) {
  const queryClient = useQueryClient();
  const queryKey = ['request-log', filters] as const;
  const query = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam, signal }) => api.get<RequestLogPage>(`/usage/log${toQuery({ limit: PAGE, cursor: pageParam, ...filters })}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  const [live, setLive] = useState<'connecting' | 'live' | 'offline'>('connecting');

  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    // Same origin: the session cookie goes along; no token in the URL.
    const events = new EventSource('/api/events');
    events.onopen = () => setLive('live');
    events.onerror = () => setLive(events.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
    events.addEventListener('request', (event) => {
      let row: RequestRow;
      try {
        row = JSON.parse((event as MessageEvent<string>).data) as RequestRow;
      } catch {
        return;
      }
      queryClient.setQueryData(['request-log', filters], (data: Parameters<typeof mergeLiveRow>[0]) => mergeLiveRow(data, row, filters));
    });
    return () => events.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- filters are compared by value through the key
  }, [queryClient, JSON.stringify(filters)]);

  return { ...query, live, rows: query.data?.pages.flatMap((p) => p.data) ?? [] };
}
