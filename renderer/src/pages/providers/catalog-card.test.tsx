import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CatalogStatus } from '../../api/types.ts';
import { createQueryClient } from '../../app.tsx';
import { installFakeApi, json } from '../../test-support/fake-api.ts';
import { CatalogCard } from './catalog-card.tsx';

afterEach(() => vi.unstubAllGlobals());

const status: CatalogStatus = {
  prices_as_of: '2026-09-23',
  sources: [{ id: 'genai-prices', name: 'pydantic/genai-prices', version: '0.1.8', date: '2026-09-23', url: 'https://github.com/pydantic/genai-prices', license: 'MIT' }],
  updated: false,
  url: 'https://raw.githubusercontent.com/pydantic/genai-prices/main/prices/new_data/v2/data.json',
  discovered: [{ provider: 'openai', fetched_at: '2026-11-29T06:00:00.000Z', models: 11 }, { provider: 'anthropic', fetched_at: '', models: 0, error: 'HTTP 401' }],
};

describe('the catalog card on Providers', () => {
  it('says how old the prices are and where they come from; Update prices fetches the newest table and says what changed', async () => {
    const { calls } = installFakeApi({
      'GET /api/catalog': () => json(200, status),
      'POST /api/catalog/update': () => json(200, { summary: '97 models, prices as of 2026-11-29: 1 added (openai/gpt-6.2-sol), 0 removed, 1 prices changed' }),
    });
    render(<QueryClientProvider client={createQueryClient()}><CatalogCard /></QueryClientProvider>);
    expect((await screen.findByText(/Prices as of/)).textContent).toBe(
      "Prices as of 2026-09-23 (pydantic/genai-prices 0.1.8), as shipped. The providers' own lists add their newest models: openai 11, anthropic 0 (last read failed).",
    );
    await userEvent.click(screen.getByRole('button', { name: 'Update prices' }));
    expect((await screen.findByRole('status')).textContent).toBe('Updated: 97 models, prices as of 2026-11-29: 1 added (openai/gpt-6.2-sol), 0 removed, 1 prices changed.');
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/catalog/update']);
  });

  it('offline: the update says why, and the prices stay', async () => {
    installFakeApi({
      'GET /api/catalog': () => json(200, status),
      'POST /api/catalog/update': () => json(502, { error: { message: 'Could not fetch the price table from https://x (ENOTFOUND): offline? Keeping the catalog in use.', type: 'server_error', param: null, code: 'catalog_unreachable' } }),
    });
    render(<QueryClientProvider client={createQueryClient()}><CatalogCard /></QueryClientProvider>);
    await screen.findByText(/Prices as of/);
    await userEvent.click(screen.getByRole('button', { name: 'Update prices' }));
    expect(await screen.findByText(/offline\? Keeping the catalog in use\./)).toBeTruthy();
    expect(screen.getByText(/Prices as of/).textContent).toContain('2026-09-23');
  });
});
