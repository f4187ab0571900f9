import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/api-client.ts';
import { queryKeys } from '../../api/shared-queries.ts';
import type { NewProviderInput, CredentialTestResult, ProviderModelInput, ProviderView } from '../../api/types.ts';

const path = (name: string) => `/providers/${encodeURIComponent(name)}`;

/** Every provider write; each refreshes the provider list, the status and the models it changes. */
export function useProviderMutations() {
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([queryKeys.providers, queryKeys.status, queryKeys.models].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  const onSuccess = () => void refresh();
  return {
    update: useMutation({ mutationFn: ({ name, body }: { name: string; body: { enabled?: boolean; baseUrl?: string; models?: ProviderModelInput[]; keyOrder?: ProviderView['key_order'] } }) => api.patch<ProviderView>(path(name), body), onSuccess }),
    setSecret: useMutation({ mutationFn: ({ name, secret }: { name: string; secret: string }) => api.put<ProviderView>(`${path(name)}/secret`, { secret }), onSuccess }),
    deleteSecret: useMutation({ mutationFn: (name: string) => api.delete<ProviderView>(`${path(name)}/secret`), onSuccess }),
    setLabelledSecret: useMutation({ mutationFn: ({ name, label, secret }: { name: string; label: string; secret: string }) => api.put<ProviderView>(`${path(name)}/secrets/${encodeURIComponent(label)}`, { secret }), onSuccess }),
    deleteLabelledSecret: useMutation({ mutationFn: ({ name, label }: { name: string; label: string }) => api.delete<ProviderView>(`${path(name)}/secrets/${encodeURIComponent(label)}`), onSuccess }),
    test: useMutation({ mutationFn: (name: string) => api.post<CredentialTestResult>(`${path(name)}/test`) }),
    create: useMutation({ mutationFn: (body: NewProviderInput) => api.post<ProviderView>('/providers', body), onSuccess }),
    remove: useMutation({ mutationFn: (name: string) => api.delete<void>(path(name)), onSuccess }),
    discover: useMutation({ mutationFn: (name: string) => api.post<{ models: { id: string }[] }>(`${path(name)}/discover`) }),
  };
}
export type ProviderMutations = ReturnType<typeof useProviderMutations>;
