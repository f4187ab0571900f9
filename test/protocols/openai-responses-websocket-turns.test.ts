import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../core/errors/patchbay-error.ts';
import { errorFrameOf, extendChain, parseResponseCreate, resolveTurnInput, warmupEvents } from '../../core/protocols/openai-responses/websocket-turns.ts';

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const frame = (fields: Record<string, unknown>) => JSON.stringify({ type: 'response.create', model: 'm', ...fields });

describe('parseResponseCreate', () => {
  it('takes the body apart from type, previous_response_id and generate', () => {
    expect(parseResponseCreate(frame({ input: [user('a')], previous_response_id: 'resp_1', generate: false }))).toEqual({ body: { model: 'm', input: [user('a')] }, previousResponseId: 'resp_1', generate: false });
    expect(parseResponseCreate(frame({ input: [] }))).toMatchObject({ previousResponseId: null, generate: true });
  });

  it('refuses what is not a response.create, naming the field', () => {
    const refusal = (text: string) => {
      try {
        parseResponseCreate(text);
      } catch (error) {
        return error as InvalidRequestError;
      }
      throw new Error('accepted');
    };
    expect(refusal('not json')).toMatchObject({ status: 400 });
    expect(refusal(JSON.stringify({ type: 'response.cancel' }))).toMatchObject({ param: 'type' });
    expect(refusal(frame({ previous_response_id: 7 }))).toMatchObject({ param: 'previous_response_id' });
    expect(refusal(frame({ generate: 'no' }))).toMatchObject({ param: 'generate' });
    expect(refusal(frame({ input: 'text' }))).toMatchObject({ param: 'input' });
  });
});

describe('the connection chain', () => {
  it('a turn after previous_response_id gets the chain, then its own items', () => {
    const warm = extendChain([user('instructions')], { id: 'resp_w', output: [] })!;
    const first = resolveTurnInput(warm, parseResponseCreate(frame({ input: [user('one')], previous_response_id: 'resp_w' })));
    expect(first).toEqual([user('instructions'), user('one')]);
    const answer = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] };
    const chain = extendChain(first, { id: 'resp_1', output: [answer] })!;
    expect(resolveTurnInput(chain, parseResponseCreate(frame({ input: [user('two')], previous_response_id: 'resp_1' })))).toEqual([user('instructions'), user('one'), answer, user('two')]);
    // Without previous_response_id the frame is the whole request.
    expect(resolveTurnInput(chain, parseResponseCreate(frame({ input: [user('all')] })))).toEqual([user('all')]);
  });

  it('only the last response continues: an older or unknown id is previous_response_not_found', () => {
    const chain = extendChain([], { id: 'resp_2', output: [] });
    expect(() => resolveTurnInput(chain, parseResponseCreate(frame({ input: [], previous_response_id: 'resp_1' })))).toThrow(expect.objectContaining({ code: 'previous_response_not_found', param: 'previous_response_id' }));
    expect(() => resolveTurnInput(null, parseResponseCreate(frame({ input: [], previous_response_id: 'resp_1' })))).toThrow(InvalidRequestError);
    expect(extendChain([], { output: [] })).toBeNull();
  });
});

describe('frames Patchbay writes', () => {
  it('a warm-up is created and completed with no output and zero usage', () => {
    const [created, completed] = warmupEvents({ model: 'm' }, 'resp_w', 1);
    expect(created).toMatchObject({ type: 'response.created', response: { id: 'resp_w', status: 'in_progress', output: [] } });
    expect(completed).toMatchObject({ type: 'response.completed', response: { id: 'resp_w', status: 'completed', output: [], usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } });
  });

  it('an error frame carries the HTTP status and the OpenAI-shaped error', () => {
    expect(errorFrameOf(new InvalidRequestError('bad', 'input'))).toEqual({ type: 'error', status: 400, error: { message: 'bad', type: 'invalid_request_error', param: 'input', code: null } });
    expect(errorFrameOf(new Error('boom'))).toMatchObject({ type: 'error', status: 500, error: { code: 'internal_error' } });
  });
});
