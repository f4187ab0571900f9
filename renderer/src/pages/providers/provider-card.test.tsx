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
  key_source: 'none', requires_key: false, secret_withheld: false, notice: null, models: [], keys: [], key_order: 'ordered', key_env: null,
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

  it('keeps each provider\'s test result on its own card when several are tested', async () => {
    const result = (ok: boolean, message: string) => () => json(200, { ok, status: ok ? 200 : 401, latency_ms: 12, message });
    installFakeApi({ 'POST /api/providers/ollama/test': result(true, 'ollama answered'), 'POST /api/providers/groq/test': result(false, 'groq said the key is invalid') });
    const groq = { ...ollama, name: 'groq', builtin: true };
    render(<QueryClientProvider client={createQueryClient()}><Card provider={ollama} /><Card provider={groq} /></QueryClientProvider>);
    for (const button of screen.getAllByRole('button', { name: 'Test' })) await userEvent.click(button);
    expect(await screen.findByText(/ollama answered/)).toBeTruthy();
    expect(await screen.findByText(/groq said the key is invalid/)).toBeTruthy();
  });

  it('says an environment variable keeps winning when a key is saved while it is set', async () => {
    const fromEnv = { label: 'default', source: 'env' as const, withheld: false, notice: null, resting_until: null, rest_reason: null, last_error: null, last_used_at: null, requests_since_start: 0 };
    const openai = { ...ollama, name: 'openai', builtin: true, requires_key: true, key_source: 'env' as const, key_env: 'OPENAI_API_KEY', keys: [fromEnv] };
    installFakeApi({ 'PUT /api/providers/openai/secret': () => json(200, openai) });
    render(<QueryClientProvider client={createQueryClient()}><Card provider={openai} /></QueryClientProvider>);
    expect(screen.getByText(/from OPENAI_API_KEY, which wins over the keychain/)).toBeTruthy();
    await userEvent.type(screen.getByLabelText('API key'), 'sk-a-new-key-123');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/Saved to the keychain, but OPENAI_API_KEY is set .* keeps being used; the saved key takes over once Patchbay restarts without OPENAI_API_KEY/)).toBeTruthy();
  });
});
