import { MAX_GENERATIONS, MAX_MODEL_ID_CHARS, withinSchemaLimits, type ChatRequest } from './request-schemas.ts';

/**
 * Whether a parsed chat body is certainly valid against chatRequestSchema, checked by hand: the
 * common request (text messages, the usual sampling fields, function tools) then skips zod, which
 * cost about a tenth of Patchbay's CPU per request on the bench's chat path (bench/profile-paths.ts).
 * It only ever says yes for a body zod accepts unchanged; anything it is not sure of (content
 * parts, tool calls, an integer beyond 2^53, a field out of range) answers false, and zod checks
 * the body and names what is wrong. test/protocols/plain-chat-request.test.ts holds it to that.
 */
export function isPlainChatRequest(raw: unknown): raw is ChatRequest {
  // An own __proto__ key (JSON.parse makes one) is left to zod, whose copy of the object treats it otherwise.
  if (!isPlainObject(raw) || Object.hasOwn(raw, '__proto__')) return false;
  const body = raw;
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0 || model.length > MAX_MODEL_ID_CHARS || CONTROL.test(model)) return false;
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages) if (!isPlainMessage(message)) return false;
  for (const key in body) {
    // Fields Patchbay does not interpret travel on as they are (the schema's objects are loose).
    const check = PLAIN_CHAT_FIELDS[key];
    if (check === undefined) continue;
    const value = body[key];
    if (value !== null && !check(value)) return false;
  }
  // `user` is optional but not nullable.
  return body.user !== null;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

function isPlainMessage(message: unknown): boolean {
  if (!isPlainObject(message) || Object.hasOwn(message, '__proto__')) return false;
  const m = message;
  if (typeof m.content !== 'string') return false;
  if (m.name !== undefined && typeof m.name !== 'string') return false;
  switch (m.role) {
    case 'system':
    case 'developer':
    case 'user':
      return true;
    case 'assistant':
      return m.tool_calls === undefined;
    case 'tool':
      return typeof m.tool_call_id === 'string' && m.tool_call_id.length > 0;
    default:
      return false;
  }
}

const between = (low: number, high: number) => (value: unknown) => typeof value === 'number' && value >= low && value <= high;
const intBetween = (low: number, high: number) => (value: unknown) => Number.isSafeInteger(value) && (value as number) >= low && (value as number) <= high;
const isBoolean = (value: unknown) => typeof value === 'boolean';
const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function isPlainTool(tool: unknown): boolean {
  if (!isPlainObject(tool) || tool.type !== 'function' || !isPlainObject(tool.function)) return false;
  const fn = tool.function;
  if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) return false;
  if (fn.description !== undefined && typeof fn.description !== 'string') return false;
  if (fn.strict !== undefined && fn.strict !== null && typeof fn.strict !== 'boolean') return false;
  return fn.parameters === undefined || (isPlainObject(fn.parameters) && withinSchemaLimits(fn.parameters));
}

/**
 * The schema's top-level fields other than model and messages, each with what it accepts when not
 * null (all are nullish but `user`). The test checks this table names every field of the schema.
 */
export const PLAIN_CHAT_FIELDS: Record<string, (value: unknown) => boolean> = {
  temperature: between(0, 2),
  top_p: between(0, 1),
  n: intBetween(1, MAX_GENERATIONS),
  stop: (value) => typeof value === 'string' || (Array.isArray(value) && value.length <= 4 && value.every((s) => typeof s === 'string')),
  stream: isBoolean,
  stream_options: (value) => isPlainObject(value) && (value.include_usage === undefined || typeof value.include_usage === 'boolean'),
  presence_penalty: between(-2, 2),
  frequency_penalty: between(-2, 2),
  seed: (value) => Number.isSafeInteger(value),
  user: (value) => typeof value === 'string',
  max_tokens: intBetween(1, Number.MAX_SAFE_INTEGER),
  max_completion_tokens: intBetween(1, Number.MAX_SAFE_INTEGER),
  tools: (value) => Array.isArray(value) && value.every(isPlainTool),
  tool_choice: (value) => value === 'none' || value === 'auto' || value === 'required',
  parallel_tool_calls: isBoolean,
  logprobs: isBoolean,
  top_logprobs: intBetween(0, 20),
};
Object.setPrototypeOf(PLAIN_CHAT_FIELDS, null);
