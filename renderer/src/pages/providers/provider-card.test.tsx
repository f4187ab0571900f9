import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProviderView } from '../../api/types.ts';
import { createQueryClient } from '../../app.tsx';
import { installFakeApi, json } from '../../test-support/fake-api.ts';
import { ProviderCard } from './provider-card.tsx';
import { useProviderMutations } from './provider-mutations.ts';

afterEach(() => vi.unstubAllGlobals());

const ollama: ProviderView = {
  name: 'ollama', protocol: 'openai', builtin: false, enabled: true, base_url: 'http://127.0.0.1:11434/v1',
  key_source: 'none', requires_key: false, secret_withheld: false, notice: null, models: [], keys: [], key_order: 'ordered',
};

function Card({ provider }: { provider: ProviderView }) {
  return <ProviderCard provider={provider} mutations={useProviderMutations()} />;
}

describe("a user-defined provider's card", () => {
  it('lists the models it has and keeps them, with every setting, when one is added and saved', async () => {
    const { calls } = installFakeApi({ 'PATCH /api/providers/ollama': () => json(200, ollama) });
    const configured = { ...ollama, models: [{ id: 'llama3:8b', contextWindow: 8192, maxOutput: 2048, capabilities: ['chat', 'tools'] }] };
    render(<QueryClientProvider client={createQueryClient()}><Card provider={configured} /></QueryClientProvider>);
    const first = await screen.findByLabelText('Model 1 id');
    expect((first as HTMLInputElement).value).toBe('llama3:8b');
    expect((screen.getByLabelText('llama3:8b context window') as HTMLInputElement).value).toBe('8192');
    await userEvent.click(screen.getByRole('button', { name: 'Add a model' }));
    await userEvent.type(screen.getByLabelText('Model 2 id'), 'qwen3:4b');
    await userEvent.click(screen.getByRole('button', { name: 'Save models' }));
    await screen.findByText('Models saved.');
    const saved = calls.find((c) => c.method === 'PATCH')!.body as { models: Record<string, unknown>[] };
    expect(saved.models.map((m) => m.id)).toEqual(['llama3:8b', 'qwen3:4b']);
    expect(saved.models[0]).toEqual({ id: 'llama3:8b', contextWindow: 8192, maxOutput: 2048, capabilities: ['chat', 'tools'] });
  });

  it("shows core's notice when the provider's key is withheld", async () => {
    installFakeApi({});
    const notice = 'The key was saved for http://127.0.0.1:11434 and is not sent to http://10.0.0.5:11434; run "patchbay providers set-key ollama".';
    render(<QueryClientProvider client={createQueryClient()}><Card provider={{ ...ollama, secret_withheld: true, notice }} /></QueryClientProvider>);
    expect(await screen.findByText(notice, { exact: false })).toBeTruthy();
  });
});
