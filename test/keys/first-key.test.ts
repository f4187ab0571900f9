import { describe, expect, it } from 'vitest';
import { createsFirstKey, firstKeyNotice, unlimitedKeyAdvice } from '../../core/keys/first-key.ts';

describe('the first key: made by serve on a laptop, an explicit command for a team', () => {
  it('a laptop (SQLite) gets its first key at the first start; a team replica (PostgreSQL) never makes one', () => {
    expect(createsFirstKey('sqlite')).toBe(true);
    expect(createsFirstKey('postgres')).toBe(false);
  });

  it("a team replica without keys says how to make the first, never printing one; with keys, or on a laptop, it says nothing", () => {
    const notice = firstKeyNotice('postgres', 0, 'npm run patchbay --');
    expect(notice).toContain('npm run patchbay -- keys create --name NAME --usd-cap 20');
    expect(notice).toContain('printed once (never in this log)');
    expect(notice).not.toMatch(/pb-[A-Za-z0-9]/);
    expect(firstKeyNotice('postgres', 1)).toBeNull();
    expect(firstKeyNotice('sqlite', 0)).toBeNull();
  });

  it('a key made without any limit is called one, with the commands that cap or revoke it', () => {
    expect(unlimitedKeyAdvice('key_1', {})).toBe('It has no cap, rate limit or expiry: "patchbay keys update key_1 --usd-cap USD" sets one, "patchbay keys revoke key_1" ends it.');
    expect(unlimitedKeyAdvice('key_1', { monthlyUsdCap: 20 })).toBeNull();
    expect(unlimitedKeyAdvice('key_1', { rpmLimit: 60, monthlyUsdCap: null })).toBeNull();
    expect(unlimitedKeyAdvice('key_1', { monthlyUsdCap: null })).not.toBeNull();
  });
});
