import type { ImagePart, MessagePart, NativeOnly, NeutralMessage, NeutralRequest, NeutralToolChoice, TextPart } from '../neutral/neutral-request.ts';
import type { ContentBlockParam, CountTokensRequestBody, MessagesRequestBody } from './request-schema.ts';

export type { NativeOnly };

export interface DecodedMessages {
  request: NeutralRequest;
  /** Refused (400 naming `param`) when the request is served by a non-Anthropic upstream. */
  nativeOnly: NativeOnly[];
}

/**
 * Anthropic Messages body -> neutral request. What the neutral model has no place for is listed
 * in `nativeOnly` rather than dropped silently: an Anthropic upstream gets the caller's own body
 * (pass-through) and honours it; any other upstream refuses it with the field named. Left out
 * without a word, because the answer is still a right answer without them: `cache_control`,
 * `metadata` beyond user_id, `thinking` (other upstreams answer without extended thinking), and
 * replayed thinking blocks (their signatures mean something to Anthropic only).
 */
export function decodeMessagesRequest(body: MessagesRequestBody | CountTokensRequestBody): DecodedMessages {
  const nativeOnly: NativeOnly[] = [];
  const full = body as Partial<MessagesRequestBody>;
  const request: NeutralRequest = {
    model: body.model,
    system: typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []).map((b) => ({ type: 'text', text: b.text })),
    messages: body.messages.map((message, index) => ({ ...decodeMessage(message, index, nativeOnly), source: `messages[${index}]` })),
    tools: [],
    stopSequences: full.stop_sequences ?? [],
  };
  for (const [index, tool] of (body.tools ?? []).entries()) {
    if (tool.type && tool.type !== 'custom') {
      nativeOnly.push({ param: `tools[${index}].type`, what: `use Anthropic's server tool "${tool.type}"` });
      continue;
    }
    request.tools.push({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: tool.input_schema ?? { type: 'object', properties: {} },
      source: { name: `tools[${index}].name`, schema: `tools[${index}].input_schema` },
    });
  }
  if (body.tool_choice) request.toolChoice = decodeToolChoice(body.tool_choice);
  if (full.max_tokens !== undefined) request.maxTokens = full.max_tokens;
  // max_tokens 0 warms Anthropic's prompt cache without an answer; elsewhere it would buy a whole answer.
  if (full.max_tokens === 0) nativeOnly.push({ param: 'max_tokens', what: 'pre-warm a prompt cache (max_tokens: 0)' });
  if (full.temperature !== undefined) request.temperature = full.temperature;
  if (full.top_p !== undefined) request.topP = full.top_p;
  if (full.top_k !== undefined) {
    request.topK = full.top_k;
    nativeOnly.push({ param: 'top_k', what: 'sample with top_k' });
  }
  if (body.thinking?.type === 'enabled') request.thinking = { budgetTokens: body.thinking.budget_tokens };
  const user = full.metadata?.user_id;
  if (typeof user === 'string' && user !== '') request.user = user;
  return { request, nativeOnly };
}

function decodeToolChoice(choice: NonNullable<MessagesRequestBody['tool_choice']>): NeutralToolChoice {
  const parallel = !('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true);
  if (choice.type === 'tool') return { type: 'tool', name: choice.name, parallel };
  return { type: choice.type, parallel };
}

function decodeMessage(message: MessagesRequestBody['messages'][number], index: number, nativeOnly: NativeOnly[]): NeutralMessage {
  if (typeof message.content === 'string') return { role: message.role, parts: [{ type: 'text', text: message.content }] };
  const parts: MessagePart[] = [];
  for (const [position, block] of message.content.entries()) {
    const part = decodeBlock(block, `messages[${index}].content[${position}]`, nativeOnly);
    if (part) parts.push(part);
  }
  return { role: message.role, parts };
}

function decodeBlock(block: ContentBlockParam, param: string, nativeOnly: NativeOnly[]): MessagePart | null {
  const b = block as Record<string, unknown> & { type: string };
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text as string };
    case 'image':
      return decodeImage(b.source as Record<string, string>, param, nativeOnly);
    case 'document': {
      const source = b.source as Record<string, unknown>;
      if (source.type === 'text' && typeof source.data === 'string') return { type: 'text', text: source.data };
      if (source.type === 'base64' && typeof source.data === 'string') {
        nativeOnly.push({ param, what: 'read a PDF document block' });
        return { type: 'document', mediaType: String(source.media_type ?? 'application/pdf'), data: source.data, ...(typeof b.title === 'string' ? { title: b.title } : {}) };
      }
      nativeOnly.push({ param: `${param}.source`, what: `read a document of source type "${String(source.type)}"` });
      return null;
    }
    case 'tool_use':
      return { type: 'tool-call', id: b.id as string, name: b.name as string, input: b.input ?? {} };
    case 'tool_result':
      return { type: 'tool-result', toolCallId: b.tool_use_id as string, content: decodeToolResultContent(b.content, param, nativeOnly), isError: b.is_error === true, source: `${param}.tool_use_id` };
    case 'thinking':
      return { type: 'reasoning', text: b.thinking as string, ...(typeof b.signature === 'string' && b.signature !== '' ? { signature: b.signature } : {}) };
    case 'redacted_thinking':
      return { type: 'redacted-reasoning', data: b.data as string };
    default:
      nativeOnly.push({ param: `${param}.type`, what: `take a "${b.type}" content block` });
      return null;
  }
}

function decodeImage(source: Record<string, string>, param: string, nativeOnly: NativeOnly[]): ImagePart | null {
  if (source.type === 'base64') return { type: 'image', mediaType: source.media_type, data: source.data, source: `${param}.source` };
  if (source.type === 'url') return { type: 'image', url: source.url, source: `${param}.source.url` };
  nativeOnly.push({ param: `${param}.source`, what: 'read an image uploaded with the Files API' });
  return null;
}

function decodeToolResultContent(content: unknown, param: string, nativeOnly: NativeOnly[]): (TextPart | ImagePart)[] {
  if (content === undefined) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: (TextPart | ImagePart)[] = [];
  for (const [index, block] of (content as Record<string, unknown>[]).entries()) {
    const part = decodeBlock(block as ContentBlockParam, `${param}.content[${index}]`, nativeOnly);
    if (part?.type === 'text' || part?.type === 'image') parts.push(part);
  }
  return parts;
}
