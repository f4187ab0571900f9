import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { ChatRequest } from '../../../core/protocols/openai/request-schemas.ts';
import { mapChatRequest, requestedTopLogprobs, withStreaming } from '../../../core/providers/openai-compatible/map-chat-request.ts';
import { quirksFor } from '../../../core/providers/openai-compatible/quirks.ts';

const openai = quirksFor('openai');
const groq = quirksFor('groq');
const together = quirksFor('together');

function chat(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'llama-3.3-70b',
    messages: [
      { role: 'developer', content: 'Be terse.' },
      { role: 'user', content: 'hi', name: 'alice' },
    ],
    ...extra,
  } as ChatRequest;
}

describe('mapChatRequest: OpenAI and user-defined endpoints get the caller body', () => {
  it('changes only the model for OpenAI, keeping every field and the same messages array', () => {
    const request = chat({ logit_bias: { '50256': -100 }, logprobs: true, top_logprobs: 2, n: 3, frequency_penalty: 0.5, max_completion_tokens: 9, stop: 'x' } as Partial<ChatRequest>);
    const body = mapChatRequest(request, 'gpt-4o', openai);
    expect(body).toEqual({ ...request, model: 'gpt-4o' });
    expect(body.messages).toBe(request.messages);
  });

  it('gives an unknown (user-defined) provider the defaults, which are OpenAI behaviour', () => {
    const local = quirksFor('my-ollama');
    expect(local).toBe(quirksFor('another-local'));
    const request = chat({ stream_options: { include_usage: false } });
    expect(mapChatRequest(request, 'llama3', local)).toEqual({ ...request, model: 'llama3' });
    expect(withStreaming(mapChatRequest(request, 'llama3', local), local).stream_options).toEqual({ include_usage: true });
  });

  it('computes quirks once per provider (a map read per request)', () => {
    expect(quirksFor('groq')).toBe(groq);
    expect(Object.isFrozen(groq)).toBe(true);
    expect(openai.editsMessages || openai.mapsChatAnswers).toBe(false);
  });
});

describe('mapChatRequest for Groq (reference §4.2, §7.1, §7.2)', () => {
  it('removes messages[].name (a 400 on Groq) and rewrites developer to system', () => {
    const body = mapChatRequest(chat(), 'llama-3.3-70b-versatile', groq);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('drops logit_bias, logprobs:false, top_logprobs and the penalties', () => {
    const request = chat({ logit_bias: { '1': 5 }, logprobs: false, top_logprobs: 3, frequency_penalty: 0.2, presence_penalty: -0.1, seed: 7, temperature: 0 } as Partial<ChatRequest>);
    const body = mapChatRequest(request, 'llama-3.3-70b-versatile', groq);
    for (const field of ['logit_bias', 'logprobs', 'top_logprobs', 'frequency_penalty', 'presence_penalty']) expect(body).not.toHaveProperty(field);
    expect(body).toMatchObject({ seed: 7, temperature: 0, model: 'llama-3.3-70b-versatile' });
  });

  it('refuses logprobs:true and n > 1 (routing keeps them away; this is the guard)', () => {
    expect(() => mapChatRequest(chat({ logprobs: true }), 'm', groq, 'groq')).toThrow(InvalidRequestError);
    try {
      mapChatRequest(chat({ n: 2 }), 'm', groq, 'groq');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ status: 400, param: 'n', code: 'unsupported_parameter' });
      expect((error as Error).message).toContain('groq');
    }
    expect(mapChatRequest(chat({ n: 1 }), 'm', groq).n).toBe(1);
  });

  it('asks for stream usage (Groq accepts stream_options since 2025) and keeps the client options', () => {
    const body = withStreaming(mapChatRequest(chat({ stream_options: { include_usage: false } }), 'm', groq), groq);
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('does not mutate the caller request', () => {
    const request = chat({ frequency_penalty: 1 });
    const copy = structuredClone(request);
    mapChatRequest(request, 'm', groq);
    expect(request).toEqual(copy);
  });
});

describe('mapChatRequest for Together (reference §5.2, §7.2)', () => {
  it('rewrites developer to system and keeps names', () => {
    const body = mapChatRequest(chat(), 'meta-llama/Llama-3.3-70B-Instruct-Turbo', together);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'hi', name: 'alice' },
    ]);
  });

  it('turns logprobs:true + top_logprobs:k into the integer logprobs:k, and 1 without k', () => {
    expect(mapChatRequest(chat({ logprobs: true, top_logprobs: 4 }), 'm', together)).toMatchObject({ logprobs: 4 });
    expect(mapChatRequest(chat({ logprobs: true, top_logprobs: 4 }), 'm', together)).not.toHaveProperty('top_logprobs');
    expect(mapChatRequest(chat({ logprobs: true }), 'm', together).logprobs).toBe(1);
    expect(mapChatRequest(chat({ logprobs: true, top_logprobs: 0 }), 'm', together).logprobs).toBe(1);
    expect(mapChatRequest(chat({ logprobs: false, top_logprobs: 2 }), 'm', together)).not.toHaveProperty('logprobs');
    expect(requestedTopLogprobs(chat({ logprobs: true, top_logprobs: 4 }))).toBe(4);
    expect(requestedTopLogprobs(chat({ top_logprobs: 4 }))).toBe(0);
  });

  it('sends max_completion_tokens as max_tokens and a string stop as an array', () => {
    const body = mapChatRequest(chat({ max_completion_tokens: 64, stop: 'END' }), 'm', together);
    expect(body).toMatchObject({ max_tokens: 64, stop: ['END'] });
    expect(body).not.toHaveProperty('max_completion_tokens');
    expect(mapChatRequest(chat({ max_tokens: 10 }), 'm', together).max_tokens).toBe(10);
  });

  it('never sends stream_options (support unsure; usage comes on the final chunk)', () => {
    const body = withStreaming(mapChatRequest(chat({ stream: true, stream_options: { include_usage: true } }), 'm', together), together);
    expect(body.stream).toBe(true);
    expect(body).not.toHaveProperty('stream_options');
  });

  it('passes n, logit_bias and penalties, which Together honours', () => {
    const body = mapChatRequest(chat({ n: 3, logit_bias: { '5': 1 }, presence_penalty: 1 } as Partial<ChatRequest>), 'm', together);
    expect(body).toMatchObject({ n: 3, logit_bias: { '5': 1 }, presence_penalty: 1 });
  });
});
