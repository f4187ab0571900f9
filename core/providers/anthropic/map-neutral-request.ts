import type { Endpoint } from '../../catalog/load-catalog.ts';
import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { CacheControl as NeutralCacheControl, MessagePart, NeutralRequest, NeutralResponseFormat, NeutralTool } from '../../protocols/neutral/neutral-request.ts';
import { FALLBACK_MAX_TOKENS, samplingRuleFor } from './anthropic-settings.ts';
import type { CacheControl, ContentBlockParam, ImageBlockParam, MessageParam, MessagesRequest, TextBlockParam, ToolChoiceParam, ToolParam } from './anthropic-wire-types.ts';
import { mapToolCallId } from './map-tool-call-id.ts';

/** The name of the tool that carries a JSON answer; its input is returned as the answer's text. */
export const JSON_RESPONSE_TOOL = 'json_response';

export interface MappedRequest {
  /** The Messages body for one answer (`stream` is the adapter's to set). */
  body: MessagesRequest;
  /** Set when the answer arrives as this tool's input and must be turned back into text. */
  jsonToolName: string | null;
}

const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const COMBINATORS = ['oneOf', 'anyOf', 'allOf'] as const;
const ASSISTANT_BLOCKS = new Set(['text', 'tool_use', 'thinking', 'redacted_thinking']);

/**
 * A neutral request -> an Anthropic Messages body. What Anthropic cannot take is refused naming
 * the caller's field (`source`); what does not change a right answer is dropped (`seed`,
 * penalties). `choices` is not in the body: the adapter sends one request per answer.
 *
 * - The system prompt and every system message, wherever it stands, go into the top-level
 *   `system`, in order: a mid-conversation system message loses its position but keeps its
 *   authority (as user text it would put the operator's words in the user's mouth).
 * - Consecutive same-role turns are merged; in a user turn the tool_result blocks go first, as
 *   Anthropic requires after a tool_use turn. Tool ids are made valid for Anthropic, the same way
 *   in tool_use and tool_result.
 * - Replayed reasoning this provider signed goes back as thinking blocks where it stood; the
 *   adapter gives it only its own (keepOwnReasoning) and fits thinking to the turn (fit-thinking.ts).
 * - A response format becomes a forced tool whose input is the answer (map-stream-event.ts turns
 *   it back into text): the Messages API (2023-06-01) has no JSON mode, and a forced tool call
 *   works on every Claude model.
 */
export function mapNeutralRequest(request: NeutralRequest, endpoint: Pick<Endpoint, 'model' | 'maxOutput'>): MappedRequest {
  const { system, messages } = mapMessages(request);
  const jsonTool = request.responseFormat ? mapResponseFormat(request.responseFormat) : null;
  const body: MessagesRequest = {
    model: endpoint.model,
    // Required by Anthropic; without a limit from the caller, the model's maximum.
    max_tokens: request.maxTokens ?? (endpoint.maxOutput > 0 ? endpoint.maxOutput : FALLBACK_MAX_TOKENS),
    messages,
  };
  if (system !== undefined) body.system = system;
  Object.assign(body, mapSampling(request, endpoint.model));
  // Anthropic rejects empty and whitespace-only stop sequences; they could never match text anyway.
  const stops = request.stopSequences.filter((s) => s.trim() !== '');
  if (stops.length > 0) body.stop_sequences = stops;
  Object.assign(body, mapTools(request, jsonTool));
  if (request.user) body.metadata = { user_id: request.user };
  if (request.thinking) body.thinking = { type: 'enabled', budget_tokens: request.thinking.budgetTokens };
  return { body, jsonToolName: jsonTool ? JSON_RESPONSE_TOOL : null };
}

/**
 * Temperatures above Anthropic's 1 (OpenAI's run to 2) are clamped, as Portkey does: values up to
 * 1 pass unchanged and anything hotter gets Anthropic's hottest. (Scaling t/2 would change every
 * ordinary value without the client knowing.)
 */
function mapSampling(request: NeutralRequest, model: string): Pick<MessagesRequest, 'temperature' | 'top_p'> {
  const rule = samplingRuleFor(model);
  if (rule === 'fixed') return {};
  const sampling: Pick<MessagesRequest, 'temperature' | 'top_p'> = {};
  if (request.temperature !== undefined) sampling.temperature = Math.min(request.temperature, 1);
  if (request.topP !== undefined && !(rule === 'one-of' && sampling.temperature !== undefined)) sampling.top_p = request.topP;
  return sampling;
}

type Turn = { role: 'user' | 'assistant'; blocks: ContentBlockParam[] };

function mapMessages(request: NeutralRequest): { system: string | TextBlockParam[] | undefined; messages: MessageParam[] } {
  const system: TextBlockParam[] = request.system.flatMap((p) => textBlocks(p.text, p.cacheControl));
  const turns: Turn[] = [];
  const push = (role: Turn['role'], blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks: [...blocks] });
  };
  for (const message of request.messages) {
    if (message.role === 'system') {
      system.push(...message.parts.flatMap((p) => (p.type === 'text' ? textBlocks(p.text, p.cacheControl) : [])));
      continue;
    }
    const blocks = message.parts.flatMap((part) => mapPart(part));
    if (message.role === 'assistant' && blocks.some((b) => !ASSISTANT_BLOCKS.has(b.type))) {
      throw new InvalidRequestError('Anthropic accepts only text, tool calls and its own thinking in assistant messages.', message.source ? `${message.source}.content` : 'messages', 'unsupported_content');
    }
    push(message.role, blocks);
  }
  trimFinalAssistantText(turns);
  if (turns.length === 0) {
    throw new InvalidRequestError('Anthropic needs at least one user or assistant message with content besides the system messages.', 'messages');
  }
  return {
    system: system.length === 0 ? undefined : system.length === 1 && !system[0].cache_control ? system[0].text : system,
    messages: turns.map(({ role, blocks }) => ({ role, content: collapse(role === 'user' ? toolResultsFirst(blocks) : blocks) })),
  };
}

function mapPart(part: MessagePart): ContentBlockParam[] {
  switch (part.type) {
    case 'text':
      return textBlocks(part.text, part.cacheControl);
    case 'image':
      return [withCacheControl(mapImage(part), part.cacheControl)];
    case 'document':
      if (part.mediaType !== 'application/pdf') {
        throw new InvalidRequestError('Anthropic reads files only as PDFs sent inline (data:application/pdf;base64,...); other types cannot be forwarded.', part.source ?? null, 'unsupported_content');
      }
      return [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } }];
    case 'audio':
      throw new InvalidRequestError('Anthropic models do not take audio input; send the audio to a model that does, or transcribe it first.', part.source ?? null, 'unsupported_content');
    case 'tool-call':
      return [{ type: 'tool_use', id: mapToolCallId(part.id), name: part.name, input: (part.input ?? {}) as Record<string, unknown> }];
    case 'tool-result': {
      const texts = part.content.flatMap((c) => (c.type === 'text' ? textBlocks(c.text, c.cacheControl) : []));
      // Anthropic rejects empty text blocks; a result with nothing to say is sent without content.
      const content = texts.length === 0 ? {} : { content: texts.length === 1 && !texts[0].cache_control ? texts[0].text : texts };
      return [{ type: 'tool_result', tool_use_id: mapToolCallId(part.toolCallId), ...content, ...(part.isError ? { is_error: true } : {}) }];
    }
    // Only this provider's own reasoning reaches here (keepOwnReasoning): replayed unchanged, in order.
    case 'reasoning':
      return part.signature === undefined ? [] : [{ type: 'thinking', thinking: part.text, signature: part.signature }];
    case 'redacted-reasoning':
      return [{ type: 'redacted_thinking', data: part.data }];
  }
}

function mapImage(image: Extract<MessagePart, { type: 'image' }>): ImageBlockParam {
  if (image.url !== undefined) return { type: 'image', source: { type: 'url', url: image.url } };
  const mediaType = image.mediaType === 'image/jpg' ? 'image/jpeg' : (image.mediaType ?? '');
  if (!IMAGE_MEDIA_TYPES.has(mediaType)) {
    throw new InvalidRequestError(`Anthropic accepts JPEG, PNG, GIF and WebP images, not ${image.mediaType}.`, image.source ?? null, 'invalid_image_format');
  }
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: image.data ?? '' } };
}

function textBlocks(text: string, cacheControl: NeutralCacheControl | undefined): TextBlockParam[] {
  if (text === '') return [];
  return [withCacheControl<TextBlockParam>({ type: 'text', text }, cacheControl)];
}

/** A prompt-cache breakpoint the caller set is kept on its block (Anthropic's cache_control). */
function withCacheControl<T extends { cache_control?: CacheControl }>(block: T, cacheControl: NeutralCacheControl | undefined): T {
  if (!cacheControl) return block;
  return { ...block, cache_control: cacheControl.ttl !== undefined ? { type: 'ephemeral', ttl: cacheControl.ttl } : { type: 'ephemeral' } };
}

function toolResultsFirst(blocks: ContentBlockParam[]): ContentBlockParam[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

/**
 * A final assistant turn is a prefill that Anthropic continues, and it rejects one ending in
 * whitespace ("final assistant content cannot end with trailing whitespace").
 */
function trimFinalAssistantText(turns: Turn[]): void {
  const last = turns[turns.length - 1];
  if (last?.role !== 'assistant') return;
  const block = last.blocks[last.blocks.length - 1];
  if (block.type !== 'text') return;
  const text = block.text.trimEnd();
  if (text === '') last.blocks.pop();
  else last.blocks[last.blocks.length - 1] = { ...block, text };
  if (last.blocks.length === 0) turns.pop();
}

/** A lone plain text block is sent as a string, the form Anthropic's own examples use. */
function collapse(blocks: ContentBlockParam[]): string | ContentBlockParam[] {
  const only = blocks[0];
  if (blocks.length === 1 && only.type === 'text' && !only.cache_control) return only.text;
  return blocks;
}

/** The answer tool: any object for plain JSON, else the caller's schema, which must describe an object. */
function mapResponseFormat(format: NeutralResponseFormat): ToolParam {
  if (!format.schema) return { name: JSON_RESPONSE_TOOL, description: format.description ?? 'Give your whole answer as the input of this tool: one JSON object.', input_schema: { type: 'object' } };
  if (format.schema.type !== 'object') {
    throw new InvalidRequestError('Anthropic can only produce a JSON object: the schema must have "type": "object" at its root.', format.source);
  }
  return { name: JSON_RESPONSE_TOOL, description: format.description ?? 'Give your whole answer as the input of this tool.', input_schema: format.schema };
}

/**
 * Tools and tool_choice, with the JSON-answer tool (if any) added. Without any tool, tool_choice
 * means nothing and is left out. With a JSON answer requested: a named client tool stays forced;
 * otherwise the JSON tool is forced when there are no client tools (or tool_choice is `none`), and
 * with client tools the model must call one tool of its choice (`any`): a client tool, or the JSON
 * tool to answer.
 */
function mapTools(request: NeutralRequest, jsonTool: ToolParam | null): { tools?: ToolParam[]; tool_choice?: ToolChoiceParam } {
  const clientTools = request.tools.map(mapTool);
  if (jsonTool && clientTools.some((t) => t.name === JSON_RESPONSE_TOOL)) {
    throw new InvalidRequestError(`With a JSON response format on Anthropic, the tool name '${JSON_RESPONSE_TOOL}' is reserved for the JSON answer; rename your tool.`, 'tools');
  }
  const tools = jsonTool ? [...clientTools, jsonTool] : clientTools;
  if (tools.length === 0) return {};
  const requested = request.toolChoice;
  let choice: ToolChoiceParam = !requested ? { type: 'auto' } : requested.type === 'tool' ? { type: 'tool', name: requested.name } : { type: requested.type };
  if (jsonTool && choice.type !== 'tool') {
    choice = clientTools.length === 0 || choice.type === 'none' ? { type: 'tool', name: JSON_RESPONSE_TOOL } : { type: 'any' };
  }
  const forcedJson = choice.type === 'tool' && choice.name === JSON_RESPONSE_TOOL;
  // `none` takes no options; the JSON answer is one call, never several.
  if (choice.type !== 'none' && (requested?.parallel === false || forcedJson)) choice = { ...choice, disable_parallel_tool_use: true };
  return { tools, tool_choice: choice };
}

function mapTool(tool: NeutralTool, i: number): ToolParam {
  const where = tool.source?.schema ?? `tools[${i}]`;
  const schema = tool.inputSchema ?? { type: 'object', properties: {} };
  for (const key of COMBINATORS) {
    if (key in schema) throw new InvalidRequestError(`Anthropic does not accept '${key}' at the top level of a tool's input schema; move the alternatives into a property.`, where);
  }
  if (schema.type !== undefined && schema.type !== 'object') throw new InvalidRequestError('Anthropic needs a tool input schema to be an object schema ("type": "object").', where);
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    // OpenAI tolerates a schema without `type`; Anthropic requires it.
    input_schema: schema.type === undefined ? { type: 'object', ...schema } : schema,
  };
}
