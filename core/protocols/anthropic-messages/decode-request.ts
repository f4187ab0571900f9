import type { ImagePart, MessagePart, NativeOnly, NeutralMessage, NeutralRequest, NeutralToolChoice, ReasoningPart, RedactedReasoningPart, TextPart } from '../neutral/neutral-request.ts';
import { openSignature } from '../neutral/signature-envelope.ts';
import type { ContentBlockParam, CountTokensRequestBody, MessagesRequestBody } from './request-schema.ts';

export type { NativeOnly };

export interface DecodedMessages {
  request: NeutralRequest;
  /** Refused (400 naming `param`) when the request is served by a non-Anthropic upstream. */
  nativeOnly: NativeOnly[];
  /**
   * What each translating upstream decides for itself: output_config.effort (a reasoning setting
   * where the upstream has one), `thinking` and `context_management` (dropped and said where not honoured).
   */
  options: MessagesOptions;
}

export interface MessagesOptions {
  /** output_config.effort as sent (low, medium, high, max). */
  effort?: string;
  /** thinking.type when it asks for thinking (enabled, adaptive). */
  thinking?: string;
  /** context_management was sent (Anthropic's context editing; nothing to edit elsewhere). */
  contextManagement: boolean;
  /**
   * Per-message settings no translating upstream has a place for, named as the caller wrote them
   * (`messages[1].output_config.format`): Claude Code's per-turn-control beta puts an output_config
   * on a message; its effort is the request's when it says the same (or the request says none).
   */
  leftOut: string[];
}

/**
 * Anthropic Messages body -> neutral request. What the neutral model has no place for is listed
 * in `nativeOnly` rather than dropped silently: an Anthropic upstream gets the caller's own body
 * (pass-through) and honours it; any other upstream refuses it with the field named. Left out
 * without a word, because the answer is still a right answer without them: `cache_control`,
 * `metadata` beyond user_id, `thinking` (other upstreams answer without extended thinking).
 * Replayed thinking blocks keep their signatures with who made them (`signedBy`); each adapter
 * gives back only its own provider's.
 */
export function decodeMessagesRequest(body: MessagesRequestBody | CountTokensRequestBody): DecodedMessages {
  const nativeOnly: NativeOnly[] = [];
  const full = body as Partial<MessagesRequestBody>;
  const request: NeutralRequest = {
    model: body.model,
    system: typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []).map((b) => ({ type: 'text', text: b.text })),
    messages: body.messages.flatMap((message, index) => {
      const decoded = decodeMessage(message, index, nativeOnly);
      // A system message of tool changes only has nothing left to say once they are applied.
      return decoded.role === 'system' && decoded.parts.length === 0 ? [] : [{ ...decoded, source: `messages[${index}]` }];
    }),
    tools: [],
    stopSequences: full.stop_sequences ?? [],
  };
  const offered = offeredTools(body);
  for (const [index, tool] of (body.tools ?? []).entries()) {
    if (!offered.has(tool.name)) continue;
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
  const options: MessagesOptions = { contextManagement: full.context_management != null, leftOut: [] };
  const outputConfig = full.output_config;
  if (outputConfig?.format) {
    const format = outputConfig.format;
    request.responseFormat = { type: 'json', ...(format.schema ? { schema: format.schema } : {}), source: 'output_config.format.schema' };
  }
  if (typeof outputConfig?.effort === 'string') options.effort = outputConfig.effort;
  readMessageOutputConfigs(body.messages, options);
  if (body.thinking && body.thinking.type !== 'disabled') options.thinking = body.thinking.type;
  return { request, nativeOnly, options };
}

/**
 * Output settings carried by messages (per-turn-control beta): an effort agreeing with the
 * request's, or the only one given, is the request's effort; anything else is listed as left out.
 */
function readMessageOutputConfigs(messages: MessagesRequestBody['messages'], options: MessagesOptions): void {
  for (const [index, message] of messages.entries()) {
    const config = (message as Record<string, unknown>).output_config;
    if (!config || typeof config !== 'object') continue;
    for (const [key, value] of Object.entries(config)) {
      if (key === 'effort' && typeof value === 'string' && (options.effort === undefined || options.effort === value)) {
        options.effort = value;
        continue;
      }
      options.leftOut.push(`messages[${index}].output_config.${key}`);
    }
  }
}

/**
 * The tools the model may call at the end of the conversation, as Anthropic offers them: every
 * tool not marked `defer_loading`, and a deferred one from the point a tool search loaded it (a
 * `tool_reference` block in a tool_result) or a `tool_addition` in a mid-conversation system
 * message added it (mid-conversation-tool-changes beta); a `tool_removal` takes one away.
 */
export function offeredTools(body: Pick<CountTokensRequestBody, 'tools' | 'messages'>): Set<string> {
  const offered = new Set<string>();
  for (const tool of body.tools ?? []) if (tool.defer_loading !== true) offered.add(tool.name);
  for (const message of body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type === 'tool_result' && Array.isArray(block.content)) {
        for (const item of block.content as Record<string, unknown>[]) if (item?.type === 'tool_reference' && typeof item.tool_name === 'string') offered.add(item.tool_name);
      } else if (block.type === 'tool_search_tool_result') {
        // Anthropic's own tool search, replayed: its references load the tools they name.
        const references = (block.content as { tool_references?: { tool_name?: unknown }[] } | undefined)?.tool_references ?? [];
        for (const reference of references) if (typeof reference?.tool_name === 'string') offered.add(reference.tool_name);
      } else if ((block.type === 'tool_addition' || block.type === 'tool_removal') && message.role === 'system') {
        const tool = block.tool as { type?: unknown; name?: unknown } | undefined;
        if (tool?.type !== 'tool_reference' || typeof tool.name !== 'string') continue;
        if (block.type === 'tool_addition') offered.add(tool.name);
        else offered.delete(tool.name);
      }
    }
  }
  return offered;
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
      return decodeThinking(b.thinking as string, b.signature);
    case 'redacted_thinking': {
      const sealed = openSignature(b.data as string);
      return sealed ? { type: 'redacted-reasoning', data: sealed.value, signedBy: sealed.provider } : { type: 'redacted-reasoning', data: b.data as string };
    }
    // A tool search's result: the tool it names is offered from here on (offeredTools); the model
    // reads that it was found, as it would see the definition appear on Anthropic.
    case 'tool_reference':
      return { type: 'text', text: `Tool "${String(b.tool_name)}" loaded; it is now available.` };
    // Tool changes (mid-conversation system messages) and Anthropic's tool-search history: what
    // they load is in the tools offered (offeredTools); the blocks themselves say nothing more.
    case 'tool_addition':
    case 'tool_removal':
    case 'server_tool_use':
    case 'tool_search_tool_result':
      if (b.type === 'server_tool_use' && !String(b.name ?? '').startsWith('tool_search_tool')) break;
      return null;
    default:
      break;
  }
  nativeOnly.push({ param: `${param}.type`, what: `take a "${b.type}" content block` });
  return null;
}

/**
 * A thinking block: Anthropic's own signature as sent, or one Patchbay sealed for another provider
 * (a Gemini thought signature), opened so that only that provider gets it back.
 */
function decodeThinking(text: string, signature: unknown): ReasoningPart | RedactedReasoningPart {
  if (typeof signature !== 'string' || signature === '') return { type: 'reasoning', text };
  const sealed = openSignature(signature);
  if (!sealed) return { type: 'reasoning', text, signature };
  if (sealed.redacted) return { type: 'redacted-reasoning', data: sealed.value, signedBy: sealed.provider };
  return { type: 'reasoning', text, signature: sealed.value, signedBy: sealed.provider };
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
