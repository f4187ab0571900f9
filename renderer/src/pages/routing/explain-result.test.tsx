import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { RouteExplanation } from '../../api/types.ts';
import { ExplainResultView } from './explain-result.tsx';

const parts = { latency: { value: 0.8, weight: 0.4 }, cost: { value: 0.5, weight: 0.4 }, availability: { value: 1, weight: 0.2 } };
const result: RouteExplanation = {
  model: 'llama-3.3-70b', strategy: 'balanced', reason: 'alias: every enabled provider serving the model',
  candidates: [{ endpoint: 'groq/llama-3.3-70b-versatile', provider: 'groq', model: 'llama-3.3-70b-versatile', rank: 1, score: 0.72, parts, expected_cost_usd: 0.000042, latency_p50_ms: 210, success_rate: 0.99, group: 'primary' }],
  skipped: [
    { endpoint: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo', provider: 'together', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', code: 'no_key', reason: 'together has no key: set one on the Providers page.' },
    { endpoint: 'ollama/llama3:70b', provider: 'ollama', model: 'llama3:70b', code: 'breaker_open', reason: 'open after 5 failures; retried in 20 s.' },
  ],
};

describe('the explain panel result', () => {
  it('lists candidates with their score parts', () => {
    render(<ExplainResultView result={result} />);
    const row = screen.getByRole('row', { name: /groq\/llama-3.3-70b-versatile/ });
    expect(within(row).getByText('0.720')).toBeTruthy();
    expect(within(row).getByText('0.80 × 0.4')).toBeTruthy();
    expect(within(row).getByText('1.00 × 0.2')).toBeTruthy();
  });

  it('shows each skipped endpoint with its reason', () => {
    render(<ExplainResultView result={result} />);
    const items = screen.getAllByRole('listitem');
    expect(items[0].textContent).toContain('together/meta-llama/Llama-3.3-70B-Instruct-Turbo');
    expect(items[0].textContent).toContain('no key');
    expect(items[0].textContent).toContain('set one on the Providers page');
    expect(items[1].textContent).toContain('breaker open');
  });

  it('says plainly when nothing can serve the request', () => {
    render(<ExplainResultView result={{ ...result, candidates: [] }} />);
    expect(screen.getByText(/No provider can serve this request now/)).toBeTruthy();
  });
});

describe('the explain panel under round-robin', () => {
  it('says the candidates are ranked by turn (round-robin has no score parts)', () => {
    const turn = { ...result.candidates[0], parts: null, score: 1 };
    render(<ExplainResultView result={{ ...result, strategy: 'round-robin', candidates: [turn, { ...turn, endpoint: 'together/x', rank: 2, score: 0.5 }] }} />);
    const row = screen.getByRole('row', { name: /groq\/llama-3.3-70b-versatile/ });
    expect(within(row).getAllByText('ranked by turn').length).toBeGreaterThan(0);
    expect(screen.getAllByRole('row', { name: /together\/x/ })).toHaveLength(1);
  });
});
