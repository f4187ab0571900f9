import { describe, expect, it } from 'vitest';
import { classCostLine } from './class-costs.ts';

const sums = (request_class: string | null, cost_usd: number) => ({ request_class, cost_usd, requests: 1, errors: 0, prompt_tokens: 0, completion_tokens: 0 });

describe('classCostLine', () => {
  it("names a session's costliest request classes and how many more there are", () => {
    expect(classCostLine([sums('main', 0.12), sums('compaction', 0.03), sums('auxiliary', 0.001)])).toBe('main turns $0.12, compactions $0.03, +1 more');
    expect(classCostLine([sums('subagent', 0.5)])).toBe('subagents $0.50');
  });

  it('says nothing for a session whose client named no class', () => {
    expect(classCostLine([sums(null, 1)])).toBeNull();
    expect(classCostLine(undefined)).toBeNull();
  });
});
