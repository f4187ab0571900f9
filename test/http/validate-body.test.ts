import { describe, expect, it } from 'vitest';
import { validateBody } from '../../core/http/validate-body.ts';
import { responsesRequestSchema } from '../../core/protocols/openai-responses/request-schema.ts';

const refusal = (body: unknown) => {
  try {
    validateBody(responsesRequestSchema, body);
    return null;
  } catch (error) {
    return { message: (error as Error).message, param: (error as { param?: string }).param };
  }
};

describe('a 400 for a field of the wrong type says what the field takes', () => {
  it('a field that takes one of several types names them (Responses input: a string or an array)', () => {
    expect(refusal({ model: 'gpt-4o-mini', input: 42 })).toEqual({ message: "Invalid 'input': must be a string or an array, not a number.", param: 'input' });
    expect(refusal({ model: 'gpt-4o-mini', input: 'hi' })).toBeNull();
  });
});
