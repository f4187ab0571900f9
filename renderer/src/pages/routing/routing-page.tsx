import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/api-client.ts';
import { queryKeys, useModels, useRouting } from '../../api/shared-queries.ts';
import type { RoutingBody } from '../../api/types.ts';
import { ErrorNote } from '../../components/query-state.tsx';
import { ExplainPanel } from './explain-panel.tsx';
import { ListMapEditor } from './list-map-editor.tsx';
import { PausePanel } from './pause-panel.tsx';
import { RulesEditor } from './rules-editor.tsx';
import { StrategyForm } from './strategy-form.tsx';

export default function RoutingPage() {
  const queryClient = useQueryClient();
  const routing = useRouting();
  const models = useModels();
  const save = useMutation({
    mutationFn: (body: unknown) => api.put<RoutingBody>('/routing', body),
    onSuccess: (next) => queryClient.setQueryData(queryKeys.routing, next),
  });
  const modelIds = [...new Set((models.data ?? []).map((m) => m.id))];
  const endpointIds = [...new Set((models.data ?? []).filter((m) => m.kind === 'model').map((m) => m.id))];

  return (
    <>
      <h1>Routing</h1>
      <ErrorNote error={routing.error} />
      {routing.data ? (
        <>
          <PausePanel routing={routing.data} onSave={(body) => save.mutateAsync(body)} pending={save.isPending} />
          <StrategyForm key={JSON.stringify([routing.data.strategy, routing.data.weights])} routing={routing.data} onSave={(body) => save.mutateAsync(body)} />
          <ListMapEditor
            title="Fallback chains"
            keyLabel="Model"
            memberLabel="model"
            value={routing.data.fallbacks ?? {}}
            options={modelIds}
            onSave={(fallbacks) => save.mutateAsync({ fallbacks })}
            help="When every provider of a model fails, Patchbay tries these models next, in this order."
          />
          <ListMapEditor
            title="Custom aliases"
            keyLabel="Alias name"
            memberLabel="model"
            value={routing.data.aliases ?? {}}
            options={endpointIds.length ? endpointIds : modelIds}
            onSave={(aliases) => save.mutateAsync({ aliases })}
            help="A name of your own for a set of models; a request for the alias may go to any of them, by the strategy."
          />
          <RulesEditor routing={routing.data} models={modelIds} onSave={(rules) => save.mutateAsync({ rules })} />
        </>
      ) : null}
      <ExplainPanel />
    </>
  );
}
