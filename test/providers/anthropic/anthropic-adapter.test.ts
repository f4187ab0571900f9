import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import { AnthropicAdapter } from '../../../core/providers/anthropic/anthropic-adapter.ts';
import type { UpstreamCall } from '../../../core/providers/provider-adapter.ts';

// Requests that never leave the adapter; HTTP behaviour is covered by the integration tests against the emulator.
const call = { provider: { name: 'anthropic' }, endpoint: { id: 'anthropic/claude-sonnet-4-5-20250929', model: 'claude-sonnet-4-5-20250929', maxOutput: 64000 }, signal: new AbortController().signal } as unknown as UpstreamCall;

describe('AnthropicAdapter without the network', () => {
  it('refuses embeddings, pointing to an embedding model', async () => {
    const error = await new AnthropicAdapter(1000).embed({ model: 'claude-sonnet-4-5', input: 'hello' }, call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, param: 'model', message: 'Anthropic has no embeddings API; use an embedding model such as text-embedding-3-small' });
  });

  it('refuses a parameter Anthropic cannot honour before sending anything', async () => {
    const adapter = new AnthropicAdapter(1000);
    const request = { model: 'claude-sonnet-4-5', messages: [{ role: 'user' as const, content: 'Hi' }], logprobs: true };
    await expect(adapter.chat(request, call)).rejects.toMatchObject({ param: 'logprobs' });
    await expect(adapter.streamChat(request, call, false)).rejects.toMatchObject({ param: 'logprobs' });
  });
});
