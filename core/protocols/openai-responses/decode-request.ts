import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { NativeOnly } from '../anthropic-messages/decode-request.ts';
import type { ImagePart, MessagePart, NeutralMessage, NeutralRequest, NeutralToolChoice, TextPart } from '../neutral/neutral-request.ts';
import type { ResponsesRequestBody } from './request-schema.ts';

/**
 * Reasoning items Patchbay writes for a non-OpenAI upstream's signed reasoning carry this prefix
 * in `encrypted_content`, so a replay can go back to where it came from and never to OpenAI,
 * which would refuse the whole request for an encrypted_content it did not write.
 */
export const PATCHBAY_REASONING_PREFIX = 'patchbay:';

/** What a Responses request asks of a chat upstream beyond the neutral model (sent as chat fields). */
export interface ChatExtras {
  response_format?: Record<string, unknown>;
  reasoning_effort?: string;
}

export interface DecodedResponses {
  request: NeutralRequest;
  extras: ChatExtras;
  /** Refused (400 naming `param`) when the request is served by an upstream other than OpenAI. */
  nativeOnly: NativeOnly[];
  /** Custom (freeform) tools, sent as functions of one string `input`: their calls are answered as custom_tool_call items. */
  customTools: ReadonlySet<string>;
}

/** The one parameter a custom tool has as a function elsewhere. */
export const CUSTOM_TOOL_INPUT = 'input';

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
 * any other upstream refuses it with the field named). Left out without a word, because the answer
 * is still right without them: reasoning items written by another upstream (their
 * encrypted_content means something to that upstream only), `store`, `metadata`, `include`.
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
  else for (const [index, item] of body.input.entries()) decodeItem(item as Item, `input[${index}]`, request.messages, nativeOnly);

  const customTools = new Set<string>();
  for (const [index, tool] of (body.tools ?? []).entries()) {
    const t = tool as Record<string, unknown>;
    if (t.type === 'custom' && typeof t.name === 'string' && t.name !== '') {
      customTools.add(t.name);
      request.tools.push(customAsFunction(t));
      continue;
    }
    if (t.type !== 'function') {
      nativeOnly.push({ param: `tools[${index}].type`, what: `run OpenAI's built-in tool "${String(t.type)}"` });
      continue;
    }
    if (typeof t.name !== 'string' || t.name === '') throw new InvalidRequestError(`tools[${index}].name is required for a function tool.`, `tools[${index}].name`);
    request.tools.push({ name: t.name, ...(typeof t.description === 'string' && t.description ? { description: t.description } : {}), inputSchema: (t.parameters as Record<string, unknown> | null) ?? { type: 'object', properties: {} } });
  }
  const parallel = body.parallel_tool_calls !== false;
  request.toolChoice = decodeToolChoice(body.tool_choice, parallel, nativeOnly);
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
  return { request, extras, nativeOnly, customTools };
}

function decodeToolChoice(choice: ResponsesRequestBody['tool_choice'], parallel: boolean, nativeOnly: NativeOnly[]): NeutralToolChoice {
  if (choice === undefined || choice === 'auto') return { type: 'auto', parallel };
  if (choice === 'none') return { type: 'none', parallel };
  if (choice === 'required') return { type: 'any', parallel };
  const c = choice as Record<string, unknown>;
  if ((c.type === 'function' || c.type === 'custom') && typeof c.name === 'string') return { type: 'tool', name: c.name, parallel };
  // allowed_tools narrows the choice to a subset; every upstream can still choose among all the tools.
  if (c.type === 'allowed_tools') return { type: c.mode === 'required' ? 'any' : 'auto', parallel };
  nativeOnly.push({ param: 'tool_choice.type', what: `force OpenAI's built-in tool "${String(c.type)}"` });
  return { type: 'auto', parallel };
}

/** The last message if it has this role, else a new one: consecutive items of one turn share a message. */
function messageFor(messages: NeutralMessage[], role: NeutralMessage['role']): NeutralMessage {
  const last = messages[messages.length - 1];
  if (last && last.role === role) return last;
  const message: NeutralMessage = { role, parts: [] };
  messages.push(message);
  return message;
}

function decodeItem(item: Item, param: string, messages: NeutralMessage[], nativeOnly: NativeOnly[]): void {
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
      if (neutralRole === 'system') messages.push({ role: 'system', parts });
      else messageFor(messages, neutralRole).parts.push(...parts);
      return;
    }
    case 'function_call': {
      const callId = requireString(item.call_id, `${param}.call_id`);
      const name = requireString(item.name, `${param}.name`);
      messageFor(messages, 'assistant').parts.push({ type: 'tool-call', id: callId, name, input: parseArguments(item.arguments, `${param}.arguments`) });
      return;
    }
    case 'custom_tool_call': {
      const callId = requireString(item.call_id, `${param}.call_id`);
      const name = requireString(item.name, `${param}.name`);
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
    case 'reasoning': {
      // Only reasoning Patchbay itself carried for a signed upstream goes on; OpenAI's own (encrypted for OpenAI) means nothing elsewhere.
      const carried = typeof item.encrypted_content === 'string' && item.encrypted_content.startsWith(PATCHBAY_REASONING_PREFIX) ? /^[^:]*:(.*)$/s.exec(item.encrypted_content.slice(PATCHBAY_REASONING_PREFIX.length))?.[1] : undefined;
      if (!carried) return;
      const text = Array.isArray(item.content) ? (item.content as { text?: unknown }[]).map((c) => (typeof c.text === 'string' ? c.text : '')).join('') : '';
      messageFor(messages, 'assistant').parts.push({ type: 'reasoning', text, signature: carried });
      return;
    }
    default:
      nativeOnly.push({ param: `${param}.type`, what: `replay an input item of type "${String(type)}"` });
  }
}

/**
 * A custom tool as a function of one string: the free text goes in `input`, and the tool's
 * grammar (Codex's apply_patch is Lark) rides in the description, so the model writes what the
 * tool parses.
 */
function customAsFunction(tool: Record<string, unknown>): NeutralRequest['tools'][number] {
  const format = tool.format as { type?: unknown; syntax?: unknown; definition?: unknown } | undefined;
  const grammar = format?.type === 'grammar' && typeof format.definition === 'string' ? `\n\nThe input must follow this ${String(format.syntax ?? '')} grammar:\n${format.definition}` : '';
  const description = `${typeof tool.description === 'string' ? tool.description : ''}${grammar}`.trim();
  return {
    name: tool.name as string,
    ...(description ? { description } : {}),
    inputSchema: { type: 'object', properties: { [CUSTOM_TOOL_INPUT]: { type: 'string', description: 'The raw input of the tool, as free text.' } }, required: [CUSTOM_TOOL_INPUT] },
  };
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
