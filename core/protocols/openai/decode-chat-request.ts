import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { MessagePart, NativeOnly, NeutralMessage, NeutralRequest, NeutralResponseFormat, NeutralToolChoice, TextPart } from '../neutral/neutral-request.ts';
import type { ChatMessage, ChatRequest } from './request-schemas.ts';

export interface DecodedChat {
  request: NeutralRequest;
  /** Refused (400 naming `param`) by an upstream reached through the neutral model: only OpenAI-compatible upstreams honour these. */
  nativeOnly: NativeOnly[];
}

type ContentPart = Exclude<Extract<ChatMessage, { role: 'user' }>['content'], string>[number];

/**
 * OpenAI chat request -> neutral request, for upstreams that do not speak OpenAI chat. What is
 * wrong whatever the upstream (tool-call arguments that are not a JSON object, an image that is
 * neither a URL nor a base64 data URL, an unknown response_format) is refused here with the field
 * named; what only OpenAI-compatible upstreams can do (log probabilities, logit bias, audio output,
 * legacy functions, files by OpenAI id) is listed in `nativeOnly`. Every part and tool keeps the
 * field it came from (`source`), so an upstream that cannot take it names that field. Dropped,
 * since the answer is still right without them: `name` on messages, `strict` on tools,
 * `image_url.detail`, `store`, `metadata`, `service_tier`, `prediction`, `reasoning_effort`.
 */
export function decodeChatRequest(chat: ChatRequest): DecodedChat {
  const nativeOnly = refusals(chat);
  const request: NeutralRequest = {
    model: chat.model,
    system: [],
    messages: chat.messages.map((message, i) => ({ ...decodeMessage(message, i, nativeOnly), source: `messages[${i}]` })),
    tools: (chat.tools ?? []).map((tool, i) => ({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      ...(tool.function.parameters ? { inputSchema: tool.function.parameters } : {}),
      source: { name: `tools[${i}].function.name`, schema: `tools[${i}].function.parameters` },
    })),
    stopSequences: chat.stop == null ? [] : typeof chat.stop === 'string' ? [chat.stop] : chat.stop,
  };
  const toolChoice = decodeToolChoice(chat);
  if (toolChoice) request.toolChoice = toolChoice;
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens;
  if (maxTokens != null) {
    request.maxTokens = maxTokens;
    request.maxTokensSource = chat.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  }
  if (chat.temperature != null) request.temperature = chat.temperature;
  if (chat.top_p != null) request.topP = chat.top_p;
  if (chat.n != null && chat.n > 1) request.choices = chat.n;
  if (chat.seed != null) request.seed = chat.seed;
  if (chat.presence_penalty) request.presencePenalty = chat.presence_penalty;
  if (chat.frequency_penalty) request.frequencyPenalty = chat.frequency_penalty;
  if (chat.user) request.user = chat.user;
  const format = decodeResponseFormat(chat.response_format);
  if (format) request.responseFormat = format;
  return { request, nativeOnly };
}

function refusals(chat: ChatRequest): NativeOnly[] {
  const found: NativeOnly[] = [];
  if (chat.logprobs === true) found.push({ param: 'logprobs', what: 'return log probabilities' });
  if ((chat.top_logprobs ?? 0) > 0) found.push({ param: 'top_logprobs', what: 'return log probabilities' });
  const bias = chat.logit_bias;
  if (bias != null && (typeof bias !== 'object' || Object.keys(bias).length > 0)) found.push({ param: 'logit_bias', what: 'bias token logits' });
  if (chat.audio != null) found.push({ param: 'audio', what: 'answer with audio' });
  else if (Array.isArray(chat.modalities) && chat.modalities.includes('audio')) found.push({ param: 'modalities', what: 'answer with audio' });
  if (chat.functions != null || chat.function_call != null) {
    found.push({ param: chat.functions != null ? 'functions' : 'function_call', what: "take the legacy 'functions' parameter (send 'tools' instead)" });
  }
  return found;
}

/** `tool_choice` with `parallel_tool_calls`; `parallel_tool_calls: false` alone means auto, one call at most. */
function decodeToolChoice(chat: ChatRequest): NeutralToolChoice | undefined {
  const parallel = chat.parallel_tool_calls !== false;
  const choice = chat.tool_choice;
  if (choice == null) return parallel ? undefined : { type: 'auto', parallel };
  if (choice === 'auto' || choice === 'none') return { type: choice, parallel };
  if (choice === 'required') return { type: 'any', parallel };
  return { type: 'tool', name: choice.function.name, parallel };
}

function decodeMessage(message: ChatMessage, i: number, nativeOnly: NativeOnly[]): NeutralMessage {
  const where = `messages[${i}]`;
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', parts: decodeContent(message.content, `${where}.content`, nativeOnly) };
    case 'user':
      return { role: 'user', parts: decodeContent(message.content, `${where}.content`, nativeOnly) };
    case 'assistant': {
      const parts = decodeContent(message.content, `${where}.content`, nativeOnly);
      (message.tool_calls ?? []).forEach((call, j) => {
        parts.push({ type: 'tool-call', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments, `${where}.tool_calls[${j}].function.arguments`) });
      });
      return { role: 'assistant', parts };
    }
    case 'tool': {
      const content: TextPart[] = typeof message.content === 'string' ? textParts(message.content, undefined) : message.content.flatMap((p) => textParts(p.text, p.cache_control));
      return { role: 'user', parts: [{ type: 'tool-result', toolCallId: message.tool_call_id, content, isError: false, source: `${where}.tool_call_id` }] };
    }
  }
}

function decodeContent(content: string | ContentPart[] | null | undefined, where: string, nativeOnly: NativeOnly[]): MessagePart[] {
  if (content == null) return [];
  if (typeof content === 'string') return textParts(content, undefined);
  return content.flatMap((part, j) => decodePart(part as ContentPart, `${where}[${j}]`, nativeOnly));
}

function decodePart(part: ContentPart, where: string, nativeOnly: NativeOnly[]): MessagePart[] {
  switch (part.type) {
    case 'text':
      return textParts(part.text, part.cache_control);
    case 'refusal':
      return textParts(part.refusal, undefined);
    case 'image_url':
      return [decodeImageUrl(part.image_url.url, `${where}.image_url.url`, part.cache_control)];
    case 'input_audio':
      return [{ type: 'audio', format: part.input_audio.format, data: part.input_audio.data, source: where }];
    case 'file': {
      const data = (part.file as { file_data?: unknown }).file_data;
      if (typeof data !== 'string') {
        nativeOnly.push({ param: `${where}.file`, what: 'read a file by its OpenAI file id (send it inline as file.file_data, a base64 data URL)' });
        return [];
      }
      const parsed = parseBase64DataUrl(data);
      if (!parsed) throw new InvalidRequestError('file.file_data must be a base64 data URL (data:application/pdf;base64,...).', `${where}.file.file_data`, 'invalid_file_data');
      const filename = (part.file as { filename?: unknown }).filename;
      return [{ type: 'document', mediaType: parsed.mediaType, data: parsed.data, ...(typeof filename === 'string' ? { title: filename } : {}), source: `${where}.file.file_data` }];
    }
  }
}

/** Empty text says nothing, and Anthropic refuses empty text blocks: no part. */
function textParts(text: string, cacheControl: unknown): TextPart[] {
  if (text === '') return [];
  const cache = readCacheControl(cacheControl);
  return [{ type: 'text', text, ...(cache ? { cacheControl: cache } : {}) }];
}

/**
 * `cache_control` is not OpenAI's, but clients that know Anthropic (and LiteLLM-style SDKs) put it
 * on content parts to mark prompt-cache breakpoints; it is kept when it has Anthropic's shape.
 */
function readCacheControl(value: unknown): TextPart['cacheControl'] | undefined {
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'ephemeral') return undefined;
  const ttl = (value as { ttl?: unknown }).ttl;
  return typeof ttl === 'string' ? { ttl } : {};
}

/** http(s) URLs stay links (the upstream fetches them, or refuses); data URLs are split into media type and base64. */
function decodeImageUrl(url: string, where: string, cacheControl: unknown): MessagePart {
  const cache = readCacheControl(cacheControl);
  const extra = { source: where, ...(cache ? { cacheControl: cache } : {}) };
  if (/^https?:\/\//i.test(url)) return { type: 'image', url, ...extra };
  const data = parseBase64DataUrl(url);
  if (!data) throw new InvalidRequestError('Images must be http(s) URLs or base64 data URLs (data:image/png;base64,...).', where, 'invalid_image_url');
  return { type: 'image', mediaType: data.mediaType, data: data.data, ...extra };
}

/** Splits `data:<type>;base64,<data>` without running a regular expression over megabytes of image. */
function parseBase64DataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const header = url.slice(5, comma).split(';');
  if (header.length < 2 || header[header.length - 1].toLowerCase() !== 'base64') return undefined;
  return { mediaType: header[0].toLowerCase(), data: url.slice(comma + 1) };
}

/**
 * OpenAI carries arguments as a JSON string; every other upstream takes an object. An empty string
 * is a call without arguments. Anything that is not a JSON object cannot be represented, and
 * guessing a wrapper would put words in the model's mouth, so it is refused with the field named.
 */
function parseArguments(text: string, where: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('Tool-call arguments must be valid JSON (a JSON object) to be sent to this provider, which takes them as an object.', where, 'invalid_tool_arguments');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidRequestError('Tool-call arguments must be a JSON object to be sent to this provider.', where, 'invalid_tool_arguments');
  }
  return parsed as Record<string, unknown>;
}

function decodeResponseFormat(format: unknown): NeutralResponseFormat | undefined {
  if (format == null) return undefined;
  const { type, json_schema: jsonSchema } = format as { type?: unknown; json_schema?: { schema?: unknown; description?: unknown } };
  if (type === 'text') return undefined;
  if (type === 'json_object') return { type: 'json', source: 'response_format' };
  if (type === 'json_schema') {
    const schema = jsonSchema?.schema;
    const description = typeof jsonSchema?.description === 'string' ? { description: jsonSchema.description } : {};
    if (schema == null) return { type: 'json', ...description, source: 'response_format.json_schema' };
    if (typeof schema !== 'object' || Array.isArray(schema)) throw new InvalidRequestError('json_schema.schema must be a JSON Schema object.', 'response_format.json_schema.schema');
    return { type: 'json', schema: schema as Record<string, unknown>, ...description, source: 'response_format.json_schema.schema' };
  }
  throw new InvalidRequestError(`response_format type "${String(type)}" is not supported; use text, json_object or json_schema.`, 'response_format.type');
}
