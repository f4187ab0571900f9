import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { MessagePart, NeutralRequest, NeutralToolChoice } from '../../protocols/neutral/neutral-request.ts';
import { GEMINI_SETTINGS, needsThoughtSignature } from './gemini-settings.ts';
import type { GeminiContent, GeminiFunctionDeclaration, GeminiGenerationConfig, GeminiPart, GeminiRequest } from './gemini-wire.ts';
import { mapJsonSchema } from './map-json-schema.ts';

/**
 * Files the Gemini API itself hosts (uploaded through its Files API): what `fileData.fileUri` is
 * documented for. Whether Gemini fetches arbitrary web URLs depends on model and date, and
 * downloading them here would make the router an open fetcher with its own timeouts, so other
 * http(s) URLs are refused with the field's name; callers send such images inline.
 */
const GOOGLE_FILE_URI = /^https:\/\/generativelanguage\.googleapis\.com\/v1(beta)?\/files\/[A-Za-z0-9_-]+$/;

const AUDIO_MIME: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mp3' };

/**
 * A neutral request -> a generateContent body for `model` (the Gemini model id). Pure: throws
 * InvalidRequestError naming the caller's field, never calls out.
 *
 * - The system prompt and every system message, wherever it stands, go into `systemInstruction`
 *   in order (Gemini has no system turn); assistant turns are `model` turns.
 * - Tool results become `functionResponse` parts of a user turn, named after the call they answer
 *   and ordered as the calls were; consecutive turns of one role are merged, since Gemini expects
 *   user and model to alternate.
 * - Reasoning replayed with Gemini's signature gives the signature back on the part that followed
 *   it (the answer text or function call Gemini signed); the thought text itself is not sent back.
 *   Only this provider's own signed reasoning reaches here (the adapter's keepOwnReasoning).
 */
export function mapNeutralRequest(request: NeutralRequest, model: string): GeminiRequest {
  const generationConfig = mapGenerationConfig(request);
  return {
    ...mapMessages(request, model),
    ...mapTools(request),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
}

interface CallRef {
  name: string;
  /** Position of the call in its turn, to put responses in the calls' order. */
  order: number;
}

function mapMessages(request: NeutralRequest, model: string): Pick<GeminiRequest, 'systemInstruction' | 'contents'> {
  const system: { text: string }[] = [];
  const prompt = request.system.map((p) => p.text).join('\n\n');
  if (prompt !== '') system.push({ text: prompt });
  const contents: GeminiContent[] = [];
  const calls = new Map<string, CallRef>();
  const responseOrder = new Map<GeminiPart, number>();

  for (const message of request.messages) {
    if (message.role === 'system') {
      const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      if (text !== '') system.push({ text });
      continue;
    }
    const parts: GeminiPart[] = [];
    let signature: string | undefined;
    let callsInTurn = 0;
    const push = (part: GeminiPart) => {
      if (signature !== undefined) part.thoughtSignature = signature;
      signature = undefined;
      parts.push(part);
    };
    for (const part of message.parts) {
      if (part.type === 'reasoning') {
        // Gemini needs its signatures back, not its thought summaries: the signature goes on the
        // part that followed the reasoning, where Gemini put it (see map-stream-event.ts).
        if (part.signature !== undefined) signature = part.signature;
        continue;
      }
      if (part.type === 'tool-call') {
        calls.set(part.id, { name: part.name, order: callsInTurn });
        const call: GeminiPart = { functionCall: { name: part.name, args: (part.input ?? {}) as Record<string, unknown> } };
        // Gemini 3 refuses a replayed call without its signature; history from elsewhere gets the documented skip value, on the turn's first call only.
        if (signature === undefined && callsInTurn === 0 && needsThoughtSignature(model)) call.thoughtSignature = GEMINI_SETTINGS.thoughtSignatureSkip;
        callsInTurn++;
        push(call);
        continue;
      }
      if (part.type === 'tool-result') {
        const call = calls.get(part.toolCallId);
        if (!call) {
          throw new InvalidRequestError(`No earlier assistant message has a tool call with id "${part.toolCallId}"; Gemini needs the function name of every tool result.`, part.source ?? null);
        }
        const text = part.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        const response: GeminiPart = { functionResponse: { name: call.name, response: toResponseObject(part.isError ? `Error: ${text}` : text) } };
        responseOrder.set(response, call.order);
        push(response);
        for (const image of part.content) if (image.type === 'image') push(mapInline(image));
        continue;
      }
      const mapped = mapContentPart(part);
      if (mapped) push(mapped);
    }
    if (signature !== undefined) parts.push({ text: '', thoughtSignature: signature });
    append(contents, message.role === 'assistant' ? 'model' : 'user', parts);
  }

  for (const content of contents) orderFunctionResponses(content, responseOrder);
  // Gemini needs at least one turn; a request of system messages alone is asked as the user.
  if (contents.length === 0 && system.length > 0) return { contents: [{ role: 'user', parts: system }] };
  return { ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}), contents };
}

function mapContentPart(part: Exclude<MessagePart, { type: 'reasoning' | 'tool-call' | 'tool-result' }>): GeminiPart | null {
  switch (part.type) {
    case 'text':
      return part.text === '' ? null : { text: part.text };
    case 'image':
      return mapInline(part);
    case 'document':
      return { inlineData: { mimeType: part.mediaType, data: part.data } };
    case 'audio': {
      const mimeType = AUDIO_MIME[part.format];
      if (!mimeType) throw new InvalidRequestError(`Audio format "${part.format}" is not supported; use wav or mp3.`, part.source ?? null);
      return { inlineData: { mimeType, data: part.data } };
    }
    case 'redacted-reasoning':
      // Another upstream's encrypted reasoning means nothing to Gemini.
      return null;
  }
}

function mapInline(image: Extract<MessagePart, { type: 'image' }>): GeminiPart {
  if (image.data !== undefined) return { inlineData: { mimeType: image.mediaType ?? 'image/png', data: image.data } };
  if (image.url !== undefined && GOOGLE_FILE_URI.test(image.url)) return { fileData: { fileUri: image.url } };
  throw new InvalidRequestError(
    'Gemini models cannot fetch images from web URLs: send the image inline (a base64 data URL, data:image/png;base64,...), or a Gemini Files API URI.',
    image.source ?? null,
  );
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

/** Gemini takes a function's result as a JSON object only: objects pass, anything else is wrapped. */
function toResponseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Plain text, the usual case.
  }
  return { content: text };
}

/** Function declarations and tool_choice; without tools, tool_choice means nothing and is left out. */
function mapTools(request: NeutralRequest): Pick<GeminiRequest, 'tools' | 'toolConfig'> {
  if (request.tools.length === 0) return {};
  const declarations = request.tools.map((tool, i): GeminiFunctionDeclaration => {
    if (!GEMINI_SETTINGS.functionNamePattern.test(tool.name)) {
      throw new InvalidRequestError(`Gemini function names must start with a letter or an underscore; "${tool.name}" does not.`, tool.source?.name ?? `tools[${i}]`);
    }
    const mapped = mapJsonSchema(tool.inputSchema, tool.source?.schema ?? `tools[${i}]`);
    return { name: tool.name, ...(tool.description ? { description: tool.description } : {}), ...(mapped ? { parameters: mapped } : {}) };
  });
  return { tools: [{ functionDeclarations: declarations }], ...mapToolChoice(request.toolChoice) };
}

function mapToolChoice(choice: NeutralToolChoice | undefined): Pick<GeminiRequest, 'toolConfig'> {
  if (!choice) return {};
  switch (choice.type) {
    case 'auto':
      return { toolConfig: { functionCallingConfig: { mode: 'AUTO' } } };
    case 'none':
      return { toolConfig: { functionCallingConfig: { mode: 'NONE' } } };
    case 'any':
      return { toolConfig: { functionCallingConfig: { mode: 'ANY' } } };
    case 'tool':
      return { toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } } };
  }
}

/**
 * Sampling and output settings. maxOutputTokens is left unset when the caller gives no limit:
 * Gemini then allows the model's own maximum. Penalties of 0 are the default and are not sent,
 * since some Gemini models refuse the penalty fields altogether. Thinking with a budget asks for
 * the thought summaries too, so they reach a client that shows thinking.
 */
function mapGenerationConfig(request: NeutralRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (request.maxTokens !== undefined && request.maxTokens > 0) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  const stop = request.stopSequences.filter((s) => s !== '');
  if (stop.length > 0) config.stopSequences = stop;
  if (request.choices !== undefined && request.choices > 1) config.candidateCount = request.choices;
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presencePenalty) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty) config.frequencyPenalty = request.frequencyPenalty;
  if (request.thinking) config.thinkingConfig = { thinkingBudget: request.thinking.budgetTokens, includeThoughts: true };
  const format = request.responseFormat;
  if (format) {
    config.responseMimeType = 'application/json';
    if (format.schema) {
      // responseJsonSchema takes JSON Schema itself (refs, additionalProperties), unlike tool
      // parameters, so the schema goes as it is; only the `$schema` dialect marker is dropped.
      const { $schema: _dialect, ...rest } = format.schema;
      config.responseJsonSchema = rest;
    }
  }
  return config;
}
