// One contract for the config store and the dashboard sign-in, run against config.json / memory
// (one machine) and PostgreSQL (a team's replicas): the same answers, but where the backend's
// purpose differs (the pause is saved only where replicas must share it), which the test says.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigStore } from '../../core/config/config-store.ts';
import { ConfigError } from '../../core/config/load-config.ts';
import type { DashboardSignIn } from '../../core/stores/dashboard-sign-in.ts';
import { PatchbayError } from '../../core/errors/patchbay-error.ts';

/** A config file as a replica would have it: its own server section, and the sections the team shares. */
export const FILE_CONFIG = {
  server: { port: 9911, allowedHosts: ['gateway.example'] },
  routing: { strategy: 'latency', aliases: { mine: ['gpt-4o-mini'] } },
  providers: { groq: { enabled: false } },
};

export interface OpenedConfigStore {
  store: ConfigStore;
  /** Another store on the same file or database (a restart, or another replica), with the given file content. */
  reopen(file: unknown): Promise<ConfigStore>;
  cleanup(): Promise<void>;
}

export function runConfigStoreContract(backend: string, open: (file: unknown) => Promise<OpenedConfigStore>): void {
  describe(`${backend}: config store`, () => {
    let opened: OpenedConfigStore | undefined;
    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    it('loads the file at first, then keeps a validated edit for the next start', async () => {
      opened = await open(FILE_CONFIG);
      const first = await opened.store.load();
      expect(first.config).toMatchObject({ strategy: 'latency', port: 9911, allowedHosts: ['gateway.example'] });
      expect(first.config.aliases.get('mine')).toEqual(['gpt-4o-mini']);
      expect(first.config.providers.get('groq')!.enabled).toBe(false);
      expect(first.paused).toBe(false);

      const next = await opened.store.edit((raw) => {
        (raw.routing as Record<string, unknown>).strategy = 'cost';
        (raw.routing as Record<string, unknown>).fallbacks = { 'gpt-4o': ['gpt-4o-mini'] };
      });
      expect(next.strategy).toBe('cost');
      const again = await (await opened.reopen(FILE_CONFIG)).load();
      expect(again.config.strategy).toBe('cost');
      expect(again.config.fallbacks.get('gpt-4o')).toEqual(['gpt-4o-mini']);
      expect(again.config.aliases.get('mine')).toEqual(['gpt-4o-mini']);
      expect(again.config.port).toBe(9911);
    });

    it('refuses an edit that does not validate (schema, then the check) and keeps what was saved', async () => {
      opened = await open(FILE_CONFIG);
      await opened.store.load();
      await expect(opened.store.edit((raw) => ((raw.routing as Record<string, unknown>).strategy = 'fastest'))).rejects.toBeInstanceOf(ConfigError);
      await expect(
        opened.store.edit(
          (raw) => ((raw.routing as Record<string, unknown>).strategy = 'cost'),
          () => {
            throw new ConfigError('Invalid config:\n  - routing.aliases.mine[0]: no such model');
          },
        ),
      ).rejects.toThrow(/no such model/);
      expect((await (await opened.reopen(FILE_CONFIG)).load()).config.strategy).toBe('latency');
    });

    it('pausing is saved only where replicas share it (PostgreSQL); on one machine a restart resumes', async () => {
      opened = await open(FILE_CONFIG);
      await opened.store.load();
      await opened.store.setPaused(true);
      expect((await (await opened.reopen(FILE_CONFIG)).load()).paused).toBe(opened.store.backend === 'postgres');
    });
  });
}

export function runSignInContract(backend: string, open: (options: { now: () => number }) => Promise<{ signIn: DashboardSignIn; cleanup(): Promise<void> }>): void {
  describe(`${backend}: dashboard sign-in`, () => {
    const clock = { t: Date.UTC(2026, 10, 1, 9), now: () => clock.t };
    /** The error a redemption throws (at once on one machine, as a rejection on PostgreSQL). */
    const refusal = async (redeem: () => unknown) => {
      try {
        await redeem();
      } catch (error) {
        return error as PatchbayError;
      }
      throw new Error('accepted');
    };

    it('a code works once; a session needs both halves; ending it ends it', async () => {
      const { signIn, cleanup } = await open({ now: clock.now });
      try {
        const { code } = await signIn.createCode();
        const session = await signIn.redeemCode(code);
        expect((await refusal(() => signIn.redeemCode(code))).status).toBe(401);
        expect(await signIn.check(session.id, session.token)).toBe(true);
        expect(await signIn.check(session.id, undefined)).toBe(false);
        expect(await signIn.check(session.id, session.id)).toBe(false);
        expect(await signIn.check(session.token, session.token)).toBe(false);
        await signIn.end(session.id);
        expect(await signIn.check(session.id, session.token)).toBe(false);
      } finally {
        await cleanup();
      }
    });

    it('codes expire after their ten minutes; sessions after 12 idle hours', async () => {
      const { signIn, cleanup } = await open({ now: clock.now });
      try {
        const stale = await signIn.createCode();
        const fresh = await signIn.createCode();
        clock.t += 11 * 60_000;
        expect((await refusal(() => signIn.redeemCode(stale.code))).status).toBe(401);
        const late = await signIn.createCode();
        const session = await signIn.redeemCode(late.code);
        expect((await refusal(() => signIn.redeemCode(fresh.code))).status).toBe(401);
        clock.t += 11 * 3_600_000;
        expect(await signIn.check(session.id, session.token)).toBe(true);
        clock.t += 11 * 3_600_000;
        expect(await signIn.check(session.id, session.token)).toBe(true);
        clock.t += 13 * 3_600_000;
        expect(await signIn.check(session.id, session.token)).toBe(false);
      } finally {
        await cleanup();
      }
    });

    it('keeps at most five codes: a sixth replaces the oldest', async () => {
      const { signIn, cleanup } = await open({ now: clock.now });
      try {
        const codes: string[] = [];
        for (let i = 0; i < 6; i++) {
          codes.push((await signIn.createCode()).code);
          clock.t += 1;
        }
        expect((await refusal(() => signIn.redeemCode(codes[0]))).status).toBe(401);
        for (const code of codes.slice(1)) expect(typeof (await signIn.redeemCode(code)).token).toBe('string');
      } finally {
        await cleanup();
      }
    });
  });
}
