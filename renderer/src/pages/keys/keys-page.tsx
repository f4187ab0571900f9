import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/api-client.ts';
import { queryKeys, useKeys, useModels } from '../../api/shared-queries.ts';
import type { KeyView } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { EmptyState, ErrorNote } from '../../components/query-state.tsx';
import { SecretDialog } from '../../components/secret-dialog.tsx';
import { formatDate, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { KeyForm, type CreateKeyInput } from './key-form.tsx';
import { UsageBar } from './usage-bar.tsx';

/** Every limit the key has, caps first: a key with only a USD cap is not "none". */
function limitsText(k: KeyView): string {
  const parts = [
    k.monthly_usd_cap !== null ? `${formatUsd(k.monthly_usd_cap)}/month` : null,
    k.monthly_token_cap !== null ? `${formatTokens(k.monthly_token_cap)} tokens/month` : null,
    k.rpm_limit ? `${formatTokens(k.rpm_limit)} req/min` : null,
    k.tpm_limit ? `${formatTokens(k.tpm_limit)} tokens/min` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

export default function KeysPage() {
  const queryClient = useQueryClient();
  const keys = useKeys();
  const models = useModels();
  const [secret, setSecret] = useState<{ value: string; title: string } | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  const [editing, setEditing] = useState<KeyView | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.keys });

  const create = useMutation({
    mutationFn: (input: CreateKeyInput) => api.post<{ key: KeyView; secret: string }>('/keys', input),
    onSuccess: (r) => {
      setSecret({ value: r.secret, title: `Key "${r.key.name}" created` });
      void refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (id: string) => api.post<{ key: KeyView; secret: string }>(`/keys/${encodeURIComponent(id)}/rotate`),
    onSuccess: (r) => {
      setSecret({ value: r.secret, title: `Key "${r.key.name}" rotated: the old secret no longer works` });
      void refresh();
    },
  });
  const update = useMutation({
    mutationFn: ({ id, input }: { id: string; input: CreateKeyInput }) => api.patch<KeyView>(`/keys/${encodeURIComponent(id)}`, input),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.post<KeyView>(`/keys/${encodeURIComponent(id)}/revoke`),
    onSuccess: () => {
      setRevoking(null);
      void refresh();
    },
  });

  const list = keys.data ?? [];
  return (
    <>
      <h1>Keys</h1>
      <p className="muted">Patchbay keys are what your tools send as their OpenAI API key. Each can have an expiry, a model allowlist, rate limits and monthly caps.</p>
      <ErrorNote error={keys.error ?? rotate.error ?? revoke.error} />
      <section className="card" aria-labelledby="keys-list">
        <h2 id="keys-list">Your keys</h2>
        {keys.isSuccess && list.length === 0 ? (
          <EmptyState title="No keys yet">
            <p>Create one below; its secret is shown once, then only a hint ({'pb-3J0V...'}) remains.</p>
          </EmptyState>
        ) : null}
        {list.length > 0 ? (
          <div className="table-wrap">
            <table>
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Models</th><th scope="col">Limits</th><th scope="col">This month</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
              </thead>
              <tbody>
                {list.map((k) => (
                  <tr key={k.id}>
                    <th scope="row">{k.name}</th>
                    <td><code>{k.hint}</code></td>
                    <td><span className={`badge ${k.status === 'active' ? 'ok' : 'bad'}`}>{k.status}</span></td>
                    <td>{k.expires_at ? formatDate(k.expires_at) : 'never'}</td>
                    <td>{k.allowed_models ? k.allowed_models.join(', ') : 'all'}</td>
                    <td>{limitsText(k)}</td>
                    <td className="bars">
                      <UsageBar label="Tokens" used={k.month_usage.tokens} reserved={k.month_usage.reserved_tokens} cap={k.monthly_token_cap} format={formatTokens} refusedNeeding={k.cap_refusal?.cap === 'tokens' ? k.cap_refusal.needed : null} />
                      <UsageBar label="Cost" used={k.month_usage.usd} reserved={k.month_usage.reserved_usd} cap={k.monthly_usd_cap} format={formatUsd} refusedNeeding={k.cap_refusal?.cap === 'usd' ? k.cap_refusal.needed : null} />
                    </td>
                    <td className="actions">
                      {k.status !== 'revoked' ? (
                        <div className="action-stack">
                          <button type="button" className="button small" onClick={() => setEditing(k)} aria-label={`Edit ${k.name}`}>Edit</button>
                          <button type="button" className="button small" onClick={() => rotate.mutate(k.id)} disabled={rotate.isPending}>Rotate</button>
                          <button type="button" className="button small danger" onClick={() => setRevoking(k)}>Revoke</button>
                        </div>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      <section className="card" aria-labelledby="create-key">
        <h2 id="create-key">Create a key</h2>
        <KeyForm models={models.data ?? []} onSubmit={(input) => create.mutateAsync(input)} />
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke "${revoking?.name ?? ''}"?`}
        confirmLabel="Revoke key"
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onCancel={() => setRevoking(null)}
        busy={revoke.isPending}
      >
        Every tool using this key gets 401 from its next request on. This cannot be undone; create a new key instead.
      </ConfirmDialog>
      <ModalDialog open={editing !== null} onOpenChange={(open) => !open && setEditing(null)} title={`Edit "${editing?.name ?? ''}"`} description="Caps and limits apply from the next request; a cleared field removes that limit." wide>
        {editing ? <KeyForm key={editing.id} editing={editing} models={models.data ?? []} onSubmit={(input) => update.mutateAsync({ id: editing.id, input })} /> : null}
      </ModalDialog>
      <SecretDialog secret={secret?.value ?? null} title={secret?.title ?? ''} onClose={() => setSecret(null)} />
    </>
  );
}
