import type { ResponsesRequestBody } from './request-schema.ts';

/**
 * The response object's fields known before any output: its id, the model, and the request's
 * settings echoed as OpenAI echoes them. `store` is false whatever was asked: Patchbay stores nothing.
 * What the spec does not let be null is left out rather than null: `usage` until it is known,
 * `user` when the caller sent none.
 */
export function responseBase(body: ResponsesRequestBody, id: string, model: string, createdAt: number): Record<string, unknown> & { id: string; model: string } {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: false,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    ...(body.user ? { user: body.user } : {}),
    metadata: body.metadata ?? {},
  };
}
