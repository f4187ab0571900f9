import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app.tsx';
import { installFakeApi, json } from '../../test-support/fake-api.ts';
import { AddProviderForm } from './add-provider-form.tsx';
import { useProviderMutations } from './provider-mutations.ts';

afterEach(() => vi.unstubAllGlobals());

function Form() {
  return <AddProviderForm mutations={useProviderMutations()} taken={['openai']} />;
}
const show = () => render(<QueryClientProvider client={createQueryClient()}><Form /></QueryClientProvider>);

describe('the add-provider form (validated by core newProviderSchema)', () => {
  it('accepts what core accepts: an underscore in the name and a lower-case variable name', async () => {
    const { calls } = installFakeApi({ 'POST /api/providers': () => json(201, {}) });
    show();
    await userEvent.type(screen.getByLabelText(/^Name/), 'my_llm');
    await userEvent.type(screen.getByLabelText(/^Base URL/), 'http://127.0.0.1:8000/v1');
    await userEvent.type(screen.getByLabelText(/environment variable/), 'my_llm_key');
    await userEvent.click(screen.getByRole('button', { name: 'Add provider' }));
    await vi.waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1), { timeout: 30_000 });
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ name: 'my_llm', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'my_llm_key' });
  });

  it("shows core's message next to each bad field and sends nothing", async () => {
    const { calls } = installFakeApi({});
    show();
    await userEvent.type(screen.getByLabelText(/^Name/), 'My LLM');
    await userEvent.type(screen.getByLabelText(/^Base URL/), 'ftp://host');
    await userEvent.type(screen.getByLabelText(/environment variable/), '1KEY');
    await userEvent.click(screen.getByRole('button', { name: 'Add provider' }));
    const describedBy = (label: RegExp) => document.getElementById(screen.getByLabelText(label).getAttribute('aria-describedby')!)!.textContent;
    expect(describedBy(/^Name/)).toMatch(/lower-case letters, digits, - and _/);
    expect(describedBy(/^Base URL/)).toMatch(/http:\/\/ or https:\/\//);
    expect(describedBy(/environment variable/)).toMatch(/environment variable name/);
    expect(calls).toHaveLength(0);
  });

  it('refuses a name that is taken before asking the server', async () => {
    const { calls } = installFakeApi({});
    show();
    await userEvent.type(screen.getByLabelText(/^Name/), 'openai');
    await userEvent.type(screen.getByLabelText(/^Base URL/), 'http://127.0.0.1:8000/v1');
    await userEvent.click(screen.getByRole('button', { name: 'Add provider' }));
    expect(screen.getByLabelText(/^Name/).getAttribute('aria-invalid')).toBe('true');
    expect(calls).toHaveLength(0);
  });
});
