import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi, json, unauthorized } from '../test-support/fake-api.ts';
import { api, onUnauthorized } from './api-client.ts';
import { ApiError } from './api-error.ts';

afterEach(() => vi.unstubAllGlobals());

describe('the /api client', () => {
  it("turns OpenAI's error shape into an ApiError that names the field", async () => {
    installFakeApi({ 'POST /api/keys': () => json(400, { error: { message: 'monthly_usd_cap: must be above 0', type: 'invalid_request_error', param: 'monthly_usd_cap', code: 'invalid_value' } }) });
    const error = await api.post('/keys', { name: 'x', monthly_usd_cap: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, param: 'monthly_usd_cap', code: 'invalid_value', message: 'monthly_usd_cap: must be above 0' });
  });

  it('says what came back when the answer is not JSON (a proxy page, a crash)', async () => {
    installFakeApi({ 'GET /api/status': () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }) });
    await expect(api.get('/status')).rejects.toThrow(/502 Bad Gateway: <html>Bad gateway/);
  });

  it('reports an unreachable server as such, not as a TypeError', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => { throw new TypeError('fetch failed'); }));
    await expect(api.get('/status')).rejects.toThrow('Cannot reach Patchbay');
  });

  it('announces a 401 to the listeners (back to sign-in) unless the caller expects one', async () => {
    installFakeApi({ 'GET /api/keys': unauthorized, 'GET /api/session': unauthorized });
    const heard = vi.fn();
    const stop = onUnauthorized(heard);
    await expect(api.get('/keys')).rejects.toMatchObject({ status: 401 });
    expect(heard).toHaveBeenCalledTimes(1);
    await expect(api.get('/session', { quiet401: true })).rejects.toMatchObject({ status: 401 });
    expect(heard).toHaveBeenCalledTimes(1);
    stop();
  });

  it('sends JSON bodies and reads 204 as no content', async () => {
    const { calls } = installFakeApi({ 'DELETE /api/session': () => new Response(null, { status: 204 }), 'PUT /api/routing': ({ body }) => json(200, body) });
    await expect(api.delete('/session')).resolves.toBeUndefined();
    await expect(api.put('/routing', { strategy: 'cost' })).resolves.toEqual({ strategy: 'cost' });
    expect(calls[1]).toMatchObject({ method: 'PUT', path: '/api/routing', body: { strategy: 'cost' } });
  });
});
