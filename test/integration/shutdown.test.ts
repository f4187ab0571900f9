import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay } from '../helpers/start-patchbay.ts';

describe('shutdown', () => {
  const emulator = new OpenAiEmulator({ apiKey: 'sk-test-shutdown' });
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-shutdown-'));
  afterAll(async () => {
    await emulator.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('saves the usage row of a stream cut at the grace deadline, and closes cleanly', async () => {
    const upstream = await emulator.start();
    const pb = await startPatchbay({ dataDir, config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: 'sk-test-shutdown' }, shutdownGraceMs: 300 });
    let release!: () => void;
    emulator.inject({ path: '/chat/completions', hold: { afterEvents: 2, until: new Promise<void>((r) => (release = r)) } });
    const stream = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a long answer' }], stream: true });
    const reading = (async () => {
      for await (const _chunk of stream) void _chunk;
    })().catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await pb.patchbay.close();
    release();
    await reading;
    const db = new Database(join(dataDir, 'patchbay.db'), { readonly: true });
    const rows = db.prepare('SELECT status, stream, error_type FROM usage').all();
    db.close();
    expect(rows).toEqual([{ status: 499, stream: 1, error_type: 'client_closed' }]);
  });
});
