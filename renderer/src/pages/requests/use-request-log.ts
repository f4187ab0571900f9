import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, toQuery } from '../../api/api-client.ts';
import { openEventStream } from '../../api/open-event-stream.ts';
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
    // The session's page half goes in a header (see open-event-stream.ts); no token in the URL.
    return openEventStream('/events', {
      onState: setLive,
      onEvent: (name, data) => {
        if (name !== 'request') return;
        let row: RequestRow;
        try {
          row = JSON.parse(data) as RequestRow;
        } catch {
          return;
        }
        queryClient.setQueryData(['request-log', filters], (cached: Parameters<typeof mergeLiveRow>[0]) => mergeLiveRow(cached, row, filters));
      },
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- filters are compared by value through the key
  }, [queryClient, JSON.stringify(filters)]);

  return { ...query, live, rows: query.data?.pages.flatMap((p) => p.data) ?? [] };
}
