import { describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay } from '../helpers/start-patchbay.ts';
import { HealthTracker, MAX_PASS_THROUGH_ENDPOINTS } from '../../core/routing/health-tracker.ts';

const settings = { failureThreshold: 5, cooldownMs: 30_000, windowSize: 100, windowMs: 60_000 };
const CATALOG = new Set(['openai/gpt-4o', 'groq/llama-3.3-70b-versatile']);
const inCatalog = (id: string) => CATALOG.has(id);

describe('health entries of pass-through model ids', () => {
  it('keeps at most the 1,000 most recent of 20,000 distinct pass-through ids, and every catalog endpoint', () => {
    let now = 1_000_000;
    const health = new HealthTracker(settings, () => now, inCatalog);
    health.record('openai/gpt-4o', { at: now, ok: true, latencyMs: 100, stream: false });
    health.record('groq/llama-3.3-70b-versatile', { at: now, ok: false, latencyMs: 50, stream: false });
    for (let i = 0; i < 20_000; i++) {
      now += 1;
      health.record(`local/x${i}`, { at: now, ok: true, latencyMs: 10, stream: false });
    }
    const ids = Object.keys(health.snapshot());
    expect(ids.filter((id) => id.startsWith('local/'))).toHaveLength(1000);
    // The most recent ones are kept; the oldest went first.
    expect(ids).toContain('local/x19999');
    expect(ids).toContain('local/x19000');
    expect(ids).not.toContain('local/x18999');
    expect(health.health('openai/gpt-4o').samples).toBe(1);
    expect(health.health('groq/llama-3.3-70b-versatile')).toMatchObject({ samples: 1, successes: 0 });
    expect(MAX_PASS_THROUGH_ENDPOINTS).toBe(1000);
  });

  it('drops a pass-through id once its window is empty, keeps a catalog endpoint, and keeps one in use', () => {
    let now = 1_000_000;
    const health = new HealthTracker(settings, () => now, inCatalog);
    health.record('openai/gpt-4o', { at: now, ok: true, latencyMs: 100, stream: false });
    health.record('local/old', { at: now, ok: true, latencyMs: 10, stream: false });
    health.record('local/busy', { at: now, ok: true, latencyMs: 10, stream: false });
    now += 40_000;
    health.record('local/busy', { at: now, ok: true, latencyMs: 10, stream: false });
    now += settings.windowMs;
    health.record('local/new', { at: now, ok: true, latencyMs: 10, stream: false });
    expect(Object.keys(health.snapshot()).sort()).toEqual(['local/busy', 'local/new', 'openai/gpt-4o']);
  });

  it('through the real server: the health of 60 pass-through ids is dropped once their window is over', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `x${i}`);
    const upstream = new OpenAiEmulator({ apiKey: 'sk-local-test', chatModels: [...ids, 'last'] });
    const baseUrl = `${await upstream.start()}/v1`;
    const windowMs = 1500;
    const pb = await startPatchbay({ env: { LOCAL_KEY: 'sk-local-test' }, config: { providers: { local: { baseUrl, apiKeyEnv: 'LOCAL_KEY' } }, routing: { healthWindow: { maxAgeMs: windowMs } } } });
    try {
      const ask = (model: string) => pb.client.chat.completions.create({ model: `local/${model}`, messages: [{ role: 'user', content: 'hi' }] });
      for (let i = 0; i < ids.length; i += 20) await Promise.all(ids.slice(i, i + 20).map(ask));
      expect(Object.keys(pb.patchbay.health.snapshot()).filter((id) => id.startsWith('local/'))).toHaveLength(60);
      await new Promise((resolve) => setTimeout(resolve, windowMs + 200));
      await ask('last');
      expect(Object.keys(pb.patchbay.health.snapshot()).filter((id) => id.startsWith('local/'))).toEqual(['local/last']);
    } finally {
      await pb.stop();
      await upstream.close();
    }
  });
});
