import { useQuery } from '@tanstack/react-query';
import { api } from './api-client.ts';
import type { KeyView, ManagedModel, ProviderView, RoutingBody, StatusBody } from './types.ts';

// Queries more than one page reads; each page's own queries live in its folder.
export const queryKeys = {
  status: ['status'] as const,
  providers: ['providers'] as const,
  models: ['models'] as const,
  keys: ['keys'] as const,
  routing: ['routing'] as const,
};

export const useStatus = () => useQuery({ queryKey: queryKeys.status, queryFn: () => api.get<StatusBody>('/status'), refetchInterval: 10_000 });
export const useProviders = () => useQuery({ queryKey: queryKeys.providers, queryFn: async () => (await api.get<{ data: ProviderView[] }>('/providers')).data });
export const useModels = () => useQuery({ queryKey: queryKeys.models, queryFn: async () => (await api.get<{ data: ManagedModel[] }>('/models')).data, staleTime: 60_000 });
export const useKeys = () => useQuery({ queryKey: queryKeys.keys, queryFn: async () => (await api.get<{ data: KeyView[] }>('/keys')).data });
export const useRouting = () => useQuery({ queryKey: queryKeys.routing, queryFn: () => api.get<RoutingBody>('/routing') });
