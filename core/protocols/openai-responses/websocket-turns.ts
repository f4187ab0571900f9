import { InvalidRequestError, PatchbayError } from '../../errors/patchbay-error.ts';

/**
 * The Responses API over a WebSocket, as Codex speaks it (openai/codex, codex-api
 * endpoint/responses_websocket.rs; observed with Codex 0.169 and 0.171): the client sends
 * `response.create` frames (a Responses body with `type`), the server answers each with the same
 * events a streamed POST /v1/responses sends, one JSON text frame per event. A frame may name the
 * connection's last response in `previous_response_id` and then carries only the items after it;
 * `generate: false` is a warm-up that generates nothing and only opens the chain. Pure: the
 * connection keeps the chain (ConnectionChain) and runs each turn as a POST /v1/responses.
 */

/** One response.create frame: the Responses body it asks for, and how it continues the connection's chain. */
export interface ResponseCreate {
  body: Record<string, unknown>;
  previousResponseId: string | null;
  /** False: a warm-up. */
  generate: boolean;
}

/** The connection's last response: every item of its conversation (the input it was made from, then its output). */
export interface ConnectionChain {
  responseId: string;
  items: unknown[];
}

/** Reads a frame; what is not a response.create with an `input` list is a 400 naming the field. */
export function parseResponseCreate(text: string): ResponseCreate {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('A WebSocket message must be a JSON object: {"type": "response.create", ...a Responses request body}.');
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) throw new InvalidRequestError('A WebSocket message must be a JSON object: {"type": "response.create", ...a Responses request body}.');
  const { type, previous_response_id: previous, generate, ...body } = frame as Record<string, unknown>;
  if (type !== 'response.create') throw new InvalidRequestError(`Unsupported message type ${JSON.stringify(type)}: Patchbay's Responses WebSocket takes "response.create".`, 'type');
  if (previous !== undefined && previous !== null && typeof previous !== 'string') throw new InvalidRequestError('previous_response_id must be a string.', 'previous_response_id');
  if (generate !== undefined && typeof generate !== 'boolean') throw new InvalidRequestError('generate must be true or false.', 'generate');
  if (body.input !== undefined && !Array.isArray(body.input)) throw new InvalidRequestError('input must be a list of items over the WebSocket (the items after previous_response_id).', 'input');
  return { body, previousResponseId: previous ?? null, generate: generate !== false };
}

/**
 * The whole input of a turn: the chain's items, then the frame's. Only the connection's last
 * response can be continued (as on OpenAI); for another, the client is told
 * `previous_response_not_found`, and Codex then sends the full request.
 */
export function resolveTurnInput(chain: ConnectionChain | null, frame: ResponseCreate): unknown[] {
  const input = (frame.body.input as unknown[] | undefined) ?? [];
  if (frame.previousResponseId === null) return input;
  if (chain?.responseId !== frame.previousResponseId) {
    throw new InvalidRequestError(`Previous response with id '${frame.previousResponseId}' not found on this connection: send the whole conversation in input, without previous_response_id.`, 'previous_response_id', 'previous_response_not_found');
  }
  return [...chain.items, ...input];
}

/** The chain after a completed response: its whole input, then what it answered. */
export function extendChain(input: unknown[], response: { id?: unknown; output?: unknown }): ConnectionChain | null {
  if (typeof response.id !== 'string') return null;
  return { responseId: response.id, items: [...input, ...(Array.isArray(response.output) ? response.output : [])] };
}

/** A warm-up's answer: created and completed, no output, no usage (no model ran). */
export function warmupEvents(body: Record<string, unknown>, id: string, createdAt: number): Record<string, unknown>[] {
  const response = { id, object: 'response', created_at: createdAt, model: body.model ?? null, output: [], parallel_tool_calls: body.parallel_tool_calls ?? true, tool_choice: body.tool_choice ?? 'auto', tools: [], store: false, error: null, incomplete_details: null, metadata: {} };
  return [
    { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', usage: null } },
    { type: 'response.completed', sequence_number: 1, response: { ...response, status: 'completed', usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 } } },
  ];
}

/**
 * An error as a WebSocket frame: what an HTTP answer would have said (its status, its OpenAI-shaped
 * error and the headers a client acts on), which Codex reads as that HTTP error (a 429 waits and
 * retries, previous_response_not_found resends the whole request).
 */
export function errorFrame(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): Record<string, unknown> {
  return { type: 'error', status, error, ...(Object.keys(headers).length ? { headers } : {}) };
}

/** A PatchbayError (or anything else, as an internal error) as an error frame. */
export function errorFrameOf(failure: unknown): Record<string, unknown> {
  if (failure instanceof PatchbayError) return errorFrame(failure.status, failure.toBody().error);
  return errorFrame(500, { type: 'server_error', code: 'internal_error', message: 'Patchbay failed while answering (an internal error, logged by the server).' });
}
