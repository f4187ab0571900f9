import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { NativeOnly } from '../anthropic-messages/decode-request.ts';
import type { ImagePart, MessagePart, NeutralMessage, NeutralRequest, TextPart } from '../neutral/neutral-request.ts';
import { openSignature } from '../neutral/signature-envelope.ts';
import { CUSTOM_TOOL_INPUT, decodeTools, type BuiltInTool } from './decode-tools.ts';
import { leftOutFields } from './left-out-fields.ts';
import type { ResponsesRequestBody } from './request-schema.ts';
import { flatToolName, type ResponsesToolNames } from './tool-names.ts';

/** What a Responses request asks of a chat upstream beyond the neutral model (sent as chat fields). */
export interface ChatExtras {
  response_format?: Record<string, unknown>;
  reasoning_effort?: string;
  /** OpenAI's prompt-cache routing hint (Codex: the thread id); OpenAI-compatible upstreams that know it take it. */
  prompt_cache_key?: string;
}

export interface DecodedResponses {
  request: NeutralRequest;
  extras: ChatExtras;
  /** Refused (400 naming `param`) when the request is served by an upstream other than OpenAI. */
  nativeOnly: NativeOnly[];
  /** Custom tools (answered as custom_tool_call items) and namespaced functions (answered under their name and namespace), by the names sent upstream. */
  toolNames: ResponsesToolNames;
  /** Built-in tools offered but not forced: left out for a translated upstream, and said so. */
  builtIns: BuiltInTool[];
  /** Fields no translated upstream takes, left out and said so (left-out-fields.ts). */
  leftOut: string[];
}

export { CUSTOM_TOOL_INPUT };

type Item = Record<string, unknown> & { type?: string };

/**
 * Requests that need state Patchbay does not keep: refused before routing, whatever the upstream,
 * because a stored response on OpenAI's side would tie the conversation to one provider and one
 * account, and the other providers have none.
 */
export function refuseStateful(body: ResponsesRequestBody): void {
  const raw = body as Record<string, unknown>;
  for (const field of ['previous_response_id', 'conversation', 'background', 'prompt'] as const) {
    const value = raw[field];
    if (value === undefined || value === null || value === false) continue;
    throw new InvalidRequestError(
      `Patchbay is stateless: '${field}' needs a response stored on the server, and Patchbay stores none. Send the whole conversation in 'input' on every turn (Codex CLI already does) and leave '${field}' out.`,
      field,
      'unsupported_parameter',
    );
  }
}

/**
 * Responses body -> neutral request, for upstreams that do not speak Responses. What the neutral
 * model has no place for is listed in `nativeOnly` (OpenAI gets the caller's body and honours it;
 * any other upstream refuses it with the field named). Left out and said so: built-in tools not
 * forced (`builtIns`), records of built-in tool runs, and the fields of left-out-fields.ts. Reasoning
 * items with encrypted_content are kept with who made them (`signedBy`, from Patchbay's envelope); each
 * adapter gives back only its own provider's and says what it left out. Left out without a word,
 * because they change nothing in the answer: `store` (answered false), `metadata` (echoed).
 */
export function decodeResponsesRequest(body: ResponsesRequestBody): DecodedResponses {
  const nativeOnly: NativeOnly[] = [];
  const request: NeutralRequest = {
    model: body.model,
    system: body.instructions ? [{ type: 'text', text: body.instructions }] : [],
    messages: [],
    tools: [],
    stopSequences: [],
  };
  if (typeof body.input === 'string') request.messages.push({ role: 'user', parts: [{ type: 'text', text: body.input }] });
  const leftOut = leftOutFields(body);
  if (typeof body.input !== 'string') for (const [index, item] of body.input.entries()) decodeItem(item as Item, `input[${index}]`, request.messages, nativeOnly, leftOut);

  const decodedTools = decodeTools(body, nativeOnly);
  request.tools = decodedTools.tools;
  request.toolChoice = decodedTools.toolChoice;
  if (body.max_output_tokens != null) {
    request.maxTokens = body.max_output_tokens;
    request.maxTokensSource = 'max_output_tokens';
  }
  if (body.temperature != null) request.temperature = body.temperature;
  if (body.top_p != null) request.topP = body.top_p;
  if (body.user) request.user = body.user;

  const extras: ChatExtras = {};
  const format = body.text?.format as Record<string, unknown> | undefined;
  if (format?.type === 'json_object') extras.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    extras.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.strict != null ? { strict: format.strict } : {}), ...(typeof format.description === 'string' ? { description: format.description } : {}) },
    };
  }
  if (body.reasoning?.effort) extras.reasoning_effort = body.reasoning.effort;
  const cacheKey = (body as Record<string, unknown>).prompt_cache_key;
  if (typeof cacheKey === 'string' && cacheKey !== '') extras.prompt_cache_key = cacheKey;
  return { request, extras, nativeOnly, toolNames: decodedTools.names, builtIns: decodedTools.builtIns, leftOut };
}

/** The last message if it has this role, else a new one: consecutive items of one turn share a message. */
function messageFor(messages: NeutralMessage[], role: NeutralMessage['role']): NeutralMessage {
  const last = messages[messages.length - 1];
  if (last && last.role === role) return last;
  const message: NeutralMessage = { role, parts: [] };
  messages.push(message);
  return message;
}

/**
 * The record of a run of one of OpenAI's built-in tools (web_search_call, code_interpreter_call,
 * shell_call and its output, mcp_call ...): only OpenAI ran it, no other upstream can take it, and
 * what it found reached the conversation through the messages after it. Left out and named
 * (`input[web_search_call]`, as `tools[web_search]` names the tool).
 */
function isBuiltInToolRecord(type: string): boolean {
  if (type === 'function_call' || type === 'function_call_output' || type === 'custom_tool_call' || type === 'custom_tool_call_output') return false;
  return /_call(_output)?$/.test(type) || /^(mcp_|tool_search_)/.test(type);
}

function decodeItem(item: Item, param: string, messages: NeutralMessage[], nativeOnly: NativeOnly[], leftOut: string[]): void {
  const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined);
  switch (type) {
    case 'message': {
      const role = item.role;
      if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
        throw new InvalidRequestError(`${param}.role must be one of "user", "assistant", "system", "developer", not ${JSON.stringify(role)}.`, `${param}.role`);
      }
      const parts = decodeContent(item.content, `${param}.content`, nativeOnly);
      // A tool result and the user's next words are one user turn; so are a reply's text and its calls.
      const neutralRole = role === 'developer' ? 'system' : role;
      if (neutralRole === 'system') messages.push({ role: 'system', parts, source: param });
      else messageFor(messages, neutralRole).parts.push(...parts);
      return;
    }
    case 'function_call': {
      const callId = requireString(item.call_id, `${param}.call_id`);
      const name = upstreamName(item, param);
      messageFor(messages, 'assistant').parts.push({ type: 'tool-call', id: callId, name, input: parseArguments(item.arguments, `${param}.arguments`) });
      return;
    }
    case 'custom_tool_call': {
      const callId = requireString(item.call_id, `${param}.call_id`);
      const name = upstreamName(item, param);
      messageFor(messages, 'assistant').parts.push({ type: 'tool-call', id: callId, name, input: { [CUSTOM_TOOL_INPUT]: requireString(item.input, `${param}.input`, true) } });
      return;
    }
    case 'custom_tool_call_output':
    case 'function_call_output': {
      const callId = requireString(item.call_id, `${param}.call_id`);
      const content = typeof item.output === 'string' ? [{ type: 'text' as const, text: item.output }] : decodeContent(item.output, `${param}.output`, nativeOnly).filter((p): p is TextPart | ImagePart => p.type === 'text' || p.type === 'image');
      messageFor(messages, 'user').parts.push({ type: 'tool-result', toolCallId: callId, content, isError: false });
      return;
    }
    // Its tools are in the request's tool list (decode-tools.ts declaredTools); the item says nothing more.
    case 'additional_tools':
      return;
    case 'reasoning': {
      // Kept with who made it: an adapter gives back only its own provider's (OpenAI's own,
      // unsealed, means something to OpenAI only, which gets the caller's body as it is).
      if (typeof item.encrypted_content !== 'string' || item.encrypted_content === '') return;
      const sealed = openSignature(item.encrypted_content);
      const assistant = messageFor(messages, 'assistant');
      if (!sealed || sealed.redacted) {
        assistant.parts.push({ type: 'redacted-reasoning', data: sealed?.value ?? item.encrypted_content, ...(sealed ? { signedBy: sealed.provider } : {}) });
        return;
      }
      // The text the signature covers: the envelope's own (Codex replays reasoning items without
      // their content), else the item's content for an envelope sealed without it.
      const text = sealed.text ?? (Array.isArray(item.content) ? (item.content as { text?: unknown }[]).map((c) => (typeof c.text === 'string' ? c.text : '')).join('') : '');
      assistant.parts.push({ type: 'reasoning', text, signature: sealed.value, signedBy: sealed.provider });
      return;
    }
    default:
      if (typeof type === 'string' && isBuiltInToolRecord(type)) {
        if (!leftOut.includes(`input[${type}]`)) leftOut.push(`input[${type}]`);
        return;
      }
      nativeOnly.push({ param: `${param}.type`, what: `replay an input item of type "${String(type)}"` });
  }
}

function decodeContent(content: unknown, param: string, nativeOnly: NativeOnly[]): MessagePart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new InvalidRequestError(`${param} must be a string or an array of content parts.`, param);
  const parts: MessagePart[] = [];
  for (const [index, raw] of content.entries()) {
    const part = raw as Record<string, unknown>;
    const at = `${param}[${index}]`;
    switch (part?.type) {
      case 'input_text':
      case 'output_text':
        parts.push({ type: 'text', text: requireString(part.text, `${at}.text`, true) });
        break;
      case 'refusal':
        parts.push({ type: 'text', text: requireString(part.refusal, `${at}.refusal`, true) });
        break;
      case 'input_image': {
        if (typeof part.image_url !== 'string' || part.image_url === '') {
          nativeOnly.push({ param: `${at}.file_id`, what: 'read an image uploaded with the Files API' });
          break;
        }
        const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url);
        parts.push(data ? { type: 'image', mediaType: data[1], data: data[2] } : { type: 'image', url: part.image_url });
        break;
      }
      default:
        nativeOnly.push({ param: `${at}.type`, what: `read a content part of type "${String(part?.type)}"` });
    }
  }
  return parts;
}

/** A replayed call's tool name as the upstream knows it: a namespaced function's flat name (as in the tool list). */
function upstreamName(item: Item, param: string): string {
  const name = requireString(item.name, `${param}.name`);
  return typeof item.namespace === 'string' && item.namespace !== '' ? flatToolName({ namespace: item.namespace, name }) : name;
}

function requireString(value: unknown, param: string, allowEmpty = false): string {
  if (typeof value === 'string' && (allowEmpty || value !== '')) return value;
  throw new InvalidRequestError(`${param} must be a${allowEmpty ? '' : ' non-empty'} string.`, param);
}

function parseArguments(value: unknown, param: string): unknown {
  const text = requireString(value, param, true);
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidRequestError(`${param} must be the function's arguments as a JSON text, as the response gave them.`, param);
  }
}
