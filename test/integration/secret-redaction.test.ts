import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

// A key with characters that change under URL-encoding and JSON-escaping, around a canary that
// none of those encodings touch: wherever any form of the key survives, the canary shows it.
const CANARY = 'LEAKCANARY7f3a9c';
const KEY = `sk-${CANARY}+/"q"\\x&y=z`;

/**
 * The base64 text any stream holding `text` at some byte offset must contain: for each of the
 * three alignments, the encoding of the whole 3-byte groups inside it (standard and URL alphabet).
 */
function base64Cores(text: string): string[] {
  const bytes = Buffer.from(text);
  const cores: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    cores.push(whole.toString('base64'), whole.toString('base64url'));
  }
  return cores;
}

/** Every byte of the data dir (patchbay.db, -wal, -shm, config), as text to search. */
function dataDirBytes(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
}

describe('a provider secret quoted back by an upstream never leaves Patchbay', () => {
  const openai = new OpenAiEmulator({ apiKey: KEY });
  const seen: string[] = [];
  let pb: TestPatchbay;

  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(`${pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    seen.push(text, JSON.stringify([...response.headers]));
    return { status: response.status, text };
  };
  const api = async (path: string) => {
    const text = await (await fetch(`${pb.patchbay.url}/api${path}`, { headers: { authorization: `Bearer ${pb.patchbay.adminToken}` } })).text();
    seen.push(text);
    return text;
  };

  beforeAll(async () => {
    const upstream = await openai.start();
    // The content log is on: it keeps response text, which must not carry the key either.
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } }, usage: { contentLog: true } }, env: { OPENAI_API_KEY: KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await openai.close();
  });

  it('a 400 quoting the key in message, type, code and param reaches the client redacted in every field', async () => {
    openai.inject({ status: 400, quoteKey: true });
    const answer = await post({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(400);
    const error = JSON.parse(answer.text).error;
    expect(error.message).toContain('Bearer [redacted]');
    expect(error.message).toContain('?key=[redacted]');
    expect(error.message).toContain('{"api_key":"[redacted]"}');
    expect(error).toMatchObject({ type: '[redacted]', param: '[redacted]', code: 'Bearer [redacted]' });
    // The openai client sees the same clean error.
    openai.inject({ status: 400, quoteKey: true });
    const thrown = await pb.client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    seen.push(JSON.stringify(thrown), String((thrown as Error).message));
    expect((thrown as { status: number }).status).toBe(400);
  });

  it('a 500 quoting the key is redacted in the attempts of all_providers_failed', async () => {
    openai.inject({ status: 500, quoteKey: true });
    const answer = await post({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error.attempts[0].message).toContain('?key=[redacted]');
  });

  it('a 200 whose body is an error quoting the key is an error, redacted', async () => {
    openai.inject({ status: 500, quoteKey: true, errorWith200: true });
    const answer = await post({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(502);
  });

  it('an error event after the first chunk quoting the key ends the stream redacted', async () => {
    openai.inject({ midStream: { afterEvents: 2, kind: 'error-event' }, quoteKey: true });
    const answer = await post({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'tell me more' }], stream: true });
    expect(answer.status).toBe(200);
    const events = answer.text.split('\n\n').filter(Boolean);
    const last = JSON.parse(events[events.length - 1].replace(/^data: /, ''));
    expect(last.error.message).toContain('Bearer [redacted]');
    expect(answer.text).not.toContain('[DONE]');
  });

  it('the key is nowhere: client answers, usage API, CSV and JSON export, logs, and the raw SQLite files', async () => {
    const rows = usageRows(pb.patchbay);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.some((row) => JSON.stringify(row.attempts).includes('[redacted]'))).toBe(true);
    seen.push(JSON.stringify(rows));
    seen.push(JSON.stringify(pb.patchbay.db.prepare('SELECT * FROM content_log').all()));
    await api('/usage/requests');
    await api('/usage/export?format=csv');
    await api('/usage/export?format=json');
    seen.push(...pb.logs);
    seen.push(dataDirBytes(pb.dataDir));
    const everything = seen.join('\n');
    expect(everything).toContain('[redacted]');
    expect(everything).not.toContain(CANARY);
    // In any case, split by any whitespace, or base64-encoded (with or without the prefix, at any offset).
    const squeezed = everything.replace(/\s+/g, '');
    expect(squeezed.toLowerCase()).not.toContain(CANARY.toLowerCase());
    for (const core of base64Cores(KEY.slice('sk-'.length))) expect(squeezed).not.toContain(core);
    // The upstream did quote it in all those forms (so the searches above had something to find).
    const quoted = JSON.stringify((openai as unknown as { keyQuotingError(message: string, carried: string | undefined): unknown }).keyQuotingError('x', undefined));
    expect(quoted.toLowerCase().replace(/\s+|\\n/g, '').split(CANARY.toLowerCase()).length).toBeGreaterThan(6);
    expect(base64Cores(KEY.slice('sk-'.length)).filter((core) => quoted.replace(/\\n|\s+/g, '').includes(core)).length).toBeGreaterThanOrEqual(3);
  });
});

describe('every key of a provider with several labelled keys is redacted, whichever key the upstream quotes', () => {
  // Two keychain keys, each around its own canary.
  const CANARY_B = 'LEAKCANARYb41d2e';
  const KEY_B = `sk-${CANARY_B}+/"w"\\x&y=z`;
  const openai = new OpenAiEmulator({ apiKey: KEY, moreApiKeys: [KEY_B] });
  const seen: string[] = [];
  let pb: TestPatchbay;

  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(`${pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    seen.push(text, JSON.stringify([...response.headers]));
    return { status: response.status, text };
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${pb.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    seen.push(text);
    return text;
  };
  const ask = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

  beforeAll(async () => {
    const upstream = await openai.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } }, usage: { contentLog: true } } });
    await api('PUT', '/providers/openai/secret', { secret: KEY });
    await api('PUT', '/providers/openai/secrets/second', { secret: KEY_B });
  });
  afterAll(async () => {
    await api('DELETE', '/providers/openai/secret').catch(() => undefined);
    await api('DELETE', '/providers/openai/secrets/second').catch(() => undefined);
    await pb?.stop();
    await openai.close();
  });

  it('a 429 quoting the first key moves to the second; a 400 quoting the second, and then its 429, reach the client redacted', async () => {
    openai.inject({ status: 429, quoteKey: true, apiKey: KEY, retryAfterSeconds: 60 });
    expect((await post(ask)).status).toBe(200);
    openai.inject({ status: 400, quoteKey: true, apiKey: KEY_B });
    const refused = await post(ask);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).error.message).toContain('Bearer [redacted]');
    // The first key still rests: the second one's 429 leaves no key, and the answer is a 429.
    openai.inject({ status: 429, quoteKey: true, apiKey: KEY_B, retryAfterSeconds: 60 });
    const limited = await post(ask);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('[redacted]');
    // Each key's last error (shown by label on the Providers page) is redacted too.
    const providers = await api('GET', '/providers');
    expect(providers).toContain('[redacted]');
  });

  it('neither key is anywhere: answers, provider views, usage API and exports, logs, and the raw SQLite files', async () => {
    const rows = usageRows(pb.patchbay);
    expect(rows.map((r) => r.provider_key)).toContain('second');
    seen.push(JSON.stringify(rows));
    seen.push(JSON.stringify(pb.patchbay.db.prepare('SELECT * FROM content_log').all()));
    await api('GET', '/usage/requests');
    await api('GET', '/usage/export?format=csv');
    await api('GET', '/usage/export?format=json');
    seen.push(...pb.logs);
    seen.push(dataDirBytes(pb.dataDir));
    const everything = seen.join('\n');
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toContain(CANARY_B);
  });
});
