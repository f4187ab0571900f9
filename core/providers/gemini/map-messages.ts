import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatMessage } from '../../protocols/openai/request-schemas.ts';
import { GEMINI_SETTINGS, needsThoughtSignature } from './gemini-settings.ts';
import type { GeminiContent, GeminiPart, GeminiRequest } from './gemini-wire.ts';
import { mapContentParts } from './map-content-parts.ts';

export type MappedMessages = Pick<GeminiRequest, 'systemInstruction' | 'contents'>;

interface CallRef {
  name: string;
  /** Position of the call in its assistant message, to put responses in the calls' order. */
  order: number;
}

/**
 * OpenAI messages to Gemini turns. System and developer messages, wherever they stand, are hoisted
 * into `systemInstruction` in their order (Gemini has no system turn); assistant becomes `model`;
 * tool results become `functionResponse` parts of a user turn, named after the call they answer;
 * consecutive turns of one role are merged, since Gemini expects user and model to alternate.
 */
export function mapMessages(messages: ChatMessage[], model: string): MappedMessages {
  const system: { text: string }[] = [];
  const contents: GeminiContent[] = [];
  const calls = new Map<string, CallRef>();
  const responseOrder = new Map<GeminiPart, number>();

  messages.forEach((message, i) => {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content);
        if (text) system.push({ text });
        break;
      }
      case 'user':
        append(contents, 'user', mapContentParts(message.content, `messages[${i}].content`));
        break;
      case 'assistant': {
        const parts = mapContentParts(message.content, `messages[${i}].content`);
        (message.tool_calls ?? []).forEach((call, j) => {
          calls.set(call.id, { name: call.function.name, order: j });
          const part: GeminiPart = { functionCall: { name: call.function.name, args: parseArguments(call.function.arguments, `messages[${i}].tool_calls[${j}].function.arguments`) } };
          // Only the first call of a turn carries a signature (Gemini 3 signs parallel calls once).
          if (j === 0 && needsThoughtSignature(model)) part.thoughtSignature = GEMINI_SETTINGS.thoughtSignatureSkip;
          parts.push(part);
        });
        append(contents, 'model', parts);
        break;
      }
      case 'tool': {
        const call = calls.get(message.tool_call_id);
        if (!call) {
          throw new InvalidRequestError(`No earlier assistant message has a tool call with id "${message.tool_call_id}"; Gemini needs the function name of every tool result.`, `messages[${i}].tool_call_id`);
        }
        const part: GeminiPart = { functionResponse: { name: call.name, response: toResponseObject(textOf(message.content)) } };
        responseOrder.set(part, call.order);
        append(contents, 'user', [part]);
        break;
      }
    }
  });

  for (const content of contents) orderFunctionResponses(content, responseOrder);
  // Gemini needs at least one turn; a request of system messages alone is asked as the user.
  if (contents.length === 0 && system.length > 0) return { contents: [{ role: 'user', parts: system }] };
  return { ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}), contents };
}

function append(contents: GeminiContent[], role: GeminiContent['role'], parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

/** Function responses first, in the order of the calls they answer; Gemini pairs them by position. */
function orderFunctionResponses(content: GeminiContent, order: Map<GeminiPart, number>): void {
  if (!content.parts.some((p) => p.functionResponse)) return;
  const responses = content.parts.filter((p) => p.functionResponse).sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  content.parts = [...responses, ...content.parts.filter((p) => !p.functionResponse)];
}

function textOf(content: string | { text: string }[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('Tool-call arguments must be a JSON object.', param);
  }
  if (!isPlainObject(parsed)) throw new InvalidRequestError('Tool-call arguments must be a JSON object.', param);
  return parsed;
}

/** Gemini takes a function's result as a JSON object only: objects pass, anything else is wrapped. */
function toResponseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // Plain text, the usual case.
  }
  return { content: text };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
