import { describe, expect, it } from 'vitest';
import { exhaustedUntil, parseGoDuration } from '../../core/providers/read-rate-limit.ts';

describe('provider rate-limit headers', () => {
  it.each([
    ['12ms', 12],
    ['1s', 1000],
    ['7.66s', 7660],
    ['6m0s', 360_000],
    ['2m59.56s', 179_560],
    ['1h2m3s', 3_723_000],
    ['soon', null],
    [undefined, null],
  ])('parses the Go duration %s', (value, ms) => expect(parseGoDuration(value)).toBe(ms));

  it('says until when an OpenAI-style window is used up, and nothing while requests remain', () => {
    expect(exhaustedUntil({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' }, 1000)).toBe(2500);
    expect(exhaustedUntil({ 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '1.5s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '250ms' }, 1000)).toBe(1250);
    expect(exhaustedUntil({ 'x-ratelimit-remaining-requests': '4999', 'x-ratelimit-reset-requests': '12ms' }, 1000)).toBeNull();
  });

  it('reads Anthropic’s RFC 3339 reset instants', () => {
    expect(exhaustedUntil({ 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': '2026-11-22T13:00:05Z' })).toBe(Date.parse('2026-11-22T13:00:05Z'));
    expect(exhaustedUntil({ 'anthropic-ratelimit-requests-remaining': '10', 'anthropic-ratelimit-requests-reset': '2026-11-22T13:00:05Z' })).toBeNull();
  });
});
