import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProviderKeyView, ProviderView } from '../../api/types.ts';
import { createQueryClient } from '../../app.tsx';
import { installFakeApi, json } from '../../test-support/fake-api.ts';
import { ProviderKeys } from './provider-keys.tsx';
import { useProviderMutations } from './provider-mutations.ts';

afterEach(() => vi.unstubAllGlobals());

const fresh = { resting_until: null, rest_reason: null, last_error: null, last_used_at: null, requests_since_start: 0 };
const key = (label: string, more: Partial<ProviderKeyView> = {}): ProviderKeyView => ({ label, source: 'keychain', withheld: false, notice: null, ...fresh, ...more });
const groq: ProviderView = {
  name: 'groq', protocol: 'openai', builtin: true, enabled: true, base_url: 'https://api.groq.com/openai/v1',
  key_source: 'keychain', requires_key: true, secret_withheld: false, notice: null, models: [], key_order: 'ordered', key_env: 'GROQ_API_KEY',
  keys: [
    key('default', { resting_until: '2026-11-26T12:00:00.000Z', rest_reason: 'rate limited or out of quota (429)', last_error: { status: 429, message: 'groq: Rate limit reached', at: '2026-11-26T11:59:00.000Z' } }),
    key('work', { requests_since_start: 12 }),
  ],
};

function Keys({ provider }: { provider: ProviderView }) {
  return <ProviderKeys provider={provider} mutations={useProviderMutations()} />;
}

describe("a provider's labelled keys", () => {
  it('lists each key by label with its state and last error, never a secret', async () => {
    installFakeApi({});
    render(<QueryClientProvider client={createQueryClient()}><Keys provider={groq} /></QueryClientProvider>);
    const table = await screen.findByRole('table', { name: 'groq keys' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringMatching(/^defaultkeychainresting until .*: rate limited or out of quota \(429\)0429: groq: Rate limit reached$/),
      'workkeychainready12—Delete',
    ]);
  });

  it('adds a labelled key (the same label replaces it) and deletes one, each by label', async () => {
    const { calls } = installFakeApi({
      'PUT /api/providers/groq/secrets/personal': () => json(200, groq),
      'DELETE /api/providers/groq/secrets/work': () => json(200, groq),
    });
    render(<QueryClientProvider client={createQueryClient()}><Keys provider={groq} /></QueryClientProvider>);
    await userEvent.type(screen.getByLabelText('Key label'), 'personal');
    await userEvent.type(screen.getByLabelText('Labelled key'), 'gsk-personal-0123456789');
    await userEvent.click(screen.getByRole('button', { name: 'Save labelled key' }));
    await screen.findByText('Key "personal" saved.');
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api/providers/groq/secrets/personal', body: { secret: 'gsk-personal-0123456789' } });
    expect((screen.getByLabelText('Labelled key') as HTMLInputElement).value).toBe('');

    await userEvent.click(screen.getByRole('button', { name: 'Delete key work' }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/providers/groq/secrets/work')).toBe(true), { timeout: 30_000 });
  });

  it('says what is wrong with a label before sending anything', async () => {
    const { calls } = installFakeApi({});
    render(<QueryClientProvider client={createQueryClient()}><Keys provider={groq} /></QueryClientProvider>);
    await userEvent.type(screen.getByLabelText('Key label'), 'Not OK');
    await userEvent.type(screen.getByLabelText('Labelled key'), 'gsk-personal-0123456789');
    await userEvent.click(screen.getByRole('button', { name: 'Save labelled key' }));
    expect(await screen.findByText(/^Label labels are 1 to 32 lower-case letters/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([]);
  });

  it('switches between using the keys in order and spreading requests across them', async () => {
    const { calls } = installFakeApi({ 'PATCH /api/providers/groq': () => json(200, { ...groq, key_order: 'spread' }) });
    render(<QueryClientProvider client={createQueryClient()}><Keys provider={groq} /></QueryClientProvider>);
    await userEvent.selectOptions(screen.getByLabelText('Use the keys'), 'spread');
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ keyOrder: 'spread' }), { timeout: 30_000 });
  });
});
