import { describe, expect, it } from 'vitest';
import { decideAlerts, EMPTY_LEDGER, pruneLedger, type AlertLedger } from '../../electron/model/alert-rules.ts';
import type { LiveEvent } from '../../electron/model/tray-state.ts';

const NOW = Date.parse('2026-11-05T12:00:00Z');
const cap = (threshold: 80 | 100, month = '2026-11', capKind: 'tokens' | 'usd' = 'tokens'): LiveEvent => ({
  name: 'key_cap',
  data: { key_id: 'k1', key_name: 'laptop', cap: capKind, threshold, used: threshold * 1000, limit: 100_000, month },
});
const breaker = (endpoint: string, state: 'open' | 'closed' | 'half_open'): LiveEvent => ({ name: 'breaker', data: { endpoint, provider: endpoint.split('/')[0], state, at: '' } });

function run(events: LiveEvent[], ledger: AlertLedger = EMPTY_LEDGER, now = NOW) {
  const titles: string[] = [];
  for (const event of events) {
    const out = decideAlerts(ledger, event, now);
    ledger = out.ledger;
    titles.push(...out.alerts.map((a) => a.title));
  }
  return { titles, ledger };
}

describe('alert rules', () => {
  it('announces 80 % and 100 % of a cap once each per month', () => {
    const { titles, ledger } = run([cap(80), cap(80), cap(100), cap(100)]);
    expect(titles).toEqual(['Key "laptop" is at 80 % of its monthly token cap', 'Key "laptop" reached its monthly token cap']);
    // A restart reloads the ledger: still nothing new this month, but next month again.
    expect(run([cap(80)], ledger).titles).toEqual([]);
    expect(run([cap(80, '2026-12')], ledger).titles).toHaveLength(1);
  });

  it('says what a USD cap used and what to do', () => {
    const out = decideAlerts(EMPTY_LEDGER, { name: 'key_cap', data: { key_id: 'k', key_name: 'ci', cap: 'usd', threshold: 100, used: 5, limit: 5, month: '2026-11' } }, NOW);
    expect(out.alerts[0].body).toContain('$5.00 of its $5.00');
    expect(out.alerts[0].body).toContain('Raise the cap under Keys');
  });

  it('announces a provider failing once for all its endpoints, and recovered when the last closes', () => {
    const { titles } = run([breaker('openai/gpt-4.1', 'open'), breaker('openai/gpt-4o', 'open'), breaker('openai/gpt-4.1', 'half_open'), breaker('openai/gpt-4.1', 'closed'), breaker('openai/gpt-4o', 'closed')]);
    expect(titles).toEqual(['openai is failing', 'openai recovered']);
  });

  it('does not repeat a flapping breaker within the month', () => {
    const flap = [breaker('groq/llama', 'open'), breaker('groq/llama', 'closed')];
    expect(run([...flap, ...flap, ...flap]).titles).toEqual(['groq is failing', 'groq recovered']);
  });

  it('drops last month from the ledger', () => {
    const { ledger } = run([cap(80, '2026-10'), cap(80)]);
    expect(pruneLedger(ledger, NOW).shown).toEqual(['key_cap:k1:tokens:80:2026-11']);
  });
});
