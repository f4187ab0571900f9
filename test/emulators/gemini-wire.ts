import { chatPromptTokens, countTokens, limitText, replyText, textOf } from './openai-emulator.ts';
import { argumentsFor, chosenToolIndex, cutAtStop, isRecord, scriptView, toolCallTokens, type ArgumentSchema, type ModelScript, type NeutralMessage } from './emulator-common.ts';

/**
 * Gemini API (v1beta) request rules and the emulated model's answer, from the public wire format
 * (../shared/reference/provider-wire.md §3, js-genai types, and error bodies quoted in public issue
 * threads). Requests follow the proto3 JSON mapping: lowerCamelCase and snake_case field names are
 * both accepted, unknown fields are rejected. The HTTP side lives in gemini-emulator.ts.
 */

export interface GeminiModelInfo {
  kind: 'chat' | 'embedding';
  displayName: string;
  inputTokenLimit: number;
  outputTokenLimit: number;
  /** Native embedding size (embedding models). */
  dimensions?: number;
}

export const GEMINI_MODELS: Record<string, GeminiModelInfo> = {
  'gemini-2.5-pro': { kind: 'chat', displayName: 'Gemini 2.5 Pro', inputTokenLimit: 1048576, outputTokenLimit: 65536 },
  'gemini-2.5-flash': { kind: 'chat', displayName: 'Gemini 2.5 Flash', inputTokenLimit: 1048576, outputTokenLimit: 65536 },
  'gemini-2.5-flash-lite': { kind: 'chat', displayName: 'Gemini 2.5 Flash-Lite', inputTokenLimit: 1048576, outputTokenLimit: 65536 },
  'gemini-3-pro-preview': { kind: 'chat', displayName: 'Gemini 3 Pro Preview', inputTokenLimit: 1048576, outputTokenLimit: 65536 },
  'gemini-embedding-001': { kind: 'embedding', displayName: 'Gemini Embedding 001', inputTokenLimit: 2048, outputTokenLimit: 1, dimensions: 3072 },
};

export interface GoogleError {
  code: number;
  status: string;
  message: string;
  details?: unknown[];
}

/** The google.rpc.Status JSON body (§3.7). */
export function googleErrorBody(error: GoogleError): { error: Record<string, unknown> } {
  return { error: { code: error.code, message: error.message, status: error.status, ...(error.details ? { details: error.details } : {}) } };
}

const invalid = (message: string): GoogleError => ({ code: 400, status: 'INVALID_ARGUMENT', message });

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Reads a field by its lowerCamelCase name, accepting the snake_case spelling too (proto3 JSON). */
export function field(obj: unknown, name: string): unknown {
  if (!isRecord(obj)) return undefined;
  return obj[name] ?? obj[snake(name)];
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const FIELDS = {
  request: ['model', 'contents', 'tools', 'toolConfig', 'safetySettings', 'systemInstruction', 'generationConfig', 'cachedContent'],
  content: ['role', 'parts'],
  part: ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult', 'thought', 'thoughtSignature', 'videoMetadata', 'mediaResolution', 'partMetadata'],
  generationConfig: [
    'stopSequences', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'candidateCount', 'maxOutputTokens', 'temperature', 'topP', 'topK',
    'seed', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs', 'logprobs', 'enableEnhancedCivicAnswers', 'speechConfig', 'thinkingConfig', 'imageConfig', 'mediaResolution',
  ],
  tool: ['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'fileSearch', 'googleMaps', 'computerUse'],
  declaration: ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior'],
  toolConfig: ['functionCallingConfig', 'retrievalConfig'],
  functionCallingConfig: ['mode', 'allowedFunctionNames'],
  schema: [
    'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength',
    'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
  ],
};
const SCHEMA_TYPES = ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'];

type Violation = { field?: string; description: string };

function unknownFields(obj: unknown, allowed: string[], at: string, out: Violation[]): void {
  if (!isRecord(obj)) return;
  for (const key of Object.keys(obj)) {
    if (allowed.includes(camel(key))) continue;
    out.push(at ? { field: at, description: `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.` } : { description: `Invalid JSON payload received. Unknown name "${key}": Cannot find field.` });
  }
}

/**
 * Checks a `parameters` Schema (the OpenAPI-3.0 subset) the way the proto JSON parser does, key by
 * key in document order: `additionalProperties`, `$schema`, `$ref`, `const`, type arrays… are errors.
 */
function walkSchema(schema: unknown, at: string, out: Violation[]): void {
  if (!isRecord(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    const name = camel(key);
    if (!FIELDS.schema.includes(name)) {
      out.push({ field: at, description: `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.` });
    } else if (name === 'type' && Array.isArray(value)) {
      out.push({ field: at, description: `Invalid JSON payload received. Unknown name "type" at '${at}': Proto field is not repeating, cannot start list.` });
    } else if (name === 'type' && !SCHEMA_TYPES.includes(String(value).toUpperCase())) {
      out.push({ field: `${at}.type`, description: `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${String(value)}"` });
    } else if (name === 'properties' && isRecord(value)) {
      Object.values(value).forEach((property, i) => walkSchema(property, `${at}.properties[${i}].value`, out));
    } else if (name === 'items') {
      walkSchema(value, `${at}.items`, out);
    } else if (name === 'anyOf') {
      list(value).forEach((option, i) => walkSchema(option, `${at}.any_of[${i}]`, out));
    }
  }
}

function parseErrors(body: Record<string, unknown>): Violation[] {
  const out: Violation[] = [];
  unknownFields(body, FIELDS.request, '', out);
  for (const [i, content] of list(field(body, 'contents')).entries()) {
    unknownFields(content, FIELDS.content, `contents[${i}]`, out);
    list(field(content, 'parts')).forEach((part, j) => unknownFields(part, FIELDS.part, `contents[${i}].parts[${j}]`, out));
  }
  const system = field(body, 'systemInstruction');
  if (system !== undefined && !isRecord(system)) {
    out.push({ field: 'system_instruction', description: `Invalid value at 'system_instruction' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), ${JSON.stringify(system)}` });
  }
  list(field(system, 'parts')).forEach((part, j) => unknownFields(part, FIELDS.part, `system_instruction.parts[${j}]`, out));
  unknownFields(field(body, 'generationConfig'), FIELDS.generationConfig, 'generation_config', out);
  const toolConfig = field(body, 'toolConfig');
  unknownFields(toolConfig, FIELDS.toolConfig, 'tool_config', out);
  unknownFields(field(toolConfig, 'functionCallingConfig'), FIELDS.functionCallingConfig, 'tool_config.function_calling_config', out);
  for (const [t, tool] of list(field(body, 'tools')).entries()) {
    unknownFields(tool, FIELDS.tool, `tools[${t}]`, out);
    for (const [f, declaration] of list(field(tool, 'functionDeclarations')).entries()) {
      const at = `tools[${t}].function_declarations[${f}]`;
      unknownFields(declaration, FIELDS.declaration, at, out);
      walkSchema(field(declaration, 'parameters'), `${at}.parameters`, out);
    }
  }
  return out;
}

export function declarationsOf(body: Record<string, unknown>): Record<string, unknown>[] {
  return list(field(body, 'tools')).flatMap((tool) => list(field(tool, 'functionDeclarations'))).filter(isRecord);
}

const partsOf = (content: unknown): unknown[] => list(field(content, 'parts'));
const countParts = (content: unknown, kind: string) => partsOf(content).filter((p) => field(p, kind) !== undefined).length;

/** What the real API rejects in a generateContent request (first problem), or null. */
export function validateGenerateRequest(body: Record<string, unknown>): GoogleError | null {
  const violations = parseErrors(body);
  if (violations.length > 0) {
    return { ...invalid(violations.map((v) => v.description).join('\n')), details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }] };
  }
  const contents = list(field(body, 'contents'));
  if (contents.length === 0) return invalid('* GenerateContentRequest.contents: contents is not specified\n');
  for (const [i, content] of contents.entries()) {
    const role = field(content, 'role');
    if (role !== undefined && role !== 'user' && role !== 'model') return invalid('Please use a valid role: user, model.');
    const parts = partsOf(content);
    if (parts.length === 0) return invalid(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    for (const [j, part] of parts.entries()) {
      const response = field(part, 'functionResponse');
      if (response !== undefined && (typeof field(response, 'name') !== 'string' || field(response, 'name') === '')) {
        return invalid(`* GenerateContentRequest.contents[${i}].parts[${j}].function_response.name: Name cannot be empty.\n`);
      }
    }
    const calls = countParts(content, 'functionCall');
    const previous = contents[i - 1];
    if (calls > 0 && (i === 0 || (field(previous, 'role') === 'model' && countParts(previous, 'functionResponse') === 0))) {
      return invalid('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    }
    if (countParts(content, 'functionResponse') > 0 && (i === 0 || countParts(previous, 'functionCall') === 0)) {
      return invalid('Please ensure that function response turn comes immediately after a function call turn.');
    }
    if (calls > 0 && i + 1 < contents.length && countParts(contents[i + 1], 'functionResponse') !== calls) {
      return invalid('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
  }
  for (const [t, tool] of list(field(body, 'tools')).entries()) {
    for (const [f, declaration] of list(field(tool, 'functionDeclarations')).entries()) {
      const name = field(declaration, 'name');
      if (typeof name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(name)) {
        return invalid(
          `* GenerateContentRequest.tools[${t}].function_declarations[${f}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
        );
      }
    }
  }
  const calling = field(field(body, 'toolConfig'), 'functionCallingConfig');
  const mode = field(calling, 'mode') ?? 'AUTO';
  if (!['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'].includes(String(mode))) {
    return invalid(`Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${String(mode)}"`);
  }
  if (list(field(calling, 'allowedFunctionNames')).length > 0 && mode !== 'ANY' && mode !== 'VALIDATED') {
    return invalid('* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed_function_names may only be set when mode is ANY.\n');
  }
  const config = field(body, 'generationConfig');
  const temperature = field(config, 'temperature');
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2)) {
    return invalid('* GenerateContentRequest.generation_config.temperature: temperature must be in the range [0.0, 2.0].\n');
  }
  const topP = field(config, 'topP');
  if (topP !== undefined && (typeof topP !== 'number' || topP < 0 || topP > 1)) return invalid('* GenerateContentRequest.generation_config.top_p: top_p must be in the range [0.0, 1.0].\n');
  const candidates = field(config, 'candidateCount');
  if (candidates !== undefined && (!Number.isInteger(candidates) || (candidates as number) < 1 || (candidates as number) > 8)) {
    return invalid('* GenerateContentRequest.generation_config.candidate_count: candidate_count must be in the range [1, 8].\n');
  }
  return null;
}

/** The text a functionResponse stands for: `response.content` or `response.output` when a string, else the compact JSON of `response`. */
export function functionResponseText(response: unknown): string {
  for (const key of ['content', 'output']) {
    const value = field(response, key);
    if (typeof value === 'string') return value;
  }
  return JSON.stringify(response ?? {});
}

const isImage = (part: unknown) => {
  const media = field(part, 'inlineData') ?? field(part, 'fileData');
  return String(field(media, 'mimeType') ?? '').startsWith('image/');
};

/**
 * The conversation in the neutral OpenAI-ish shape the shared reply/token rules read:
 * systemInstruction first (one system message), then each content (`model` → assistant); a content's
 * functionResponse parts become one `tool` message each; image parts become `image_url` parts;
 * functionCall parts carry no text.
 */
export function neutralMessages(body: Record<string, unknown>): NeutralMessage[] {
  const out: NeutralMessage[] = [];
  const systemParts = partsOf(field(body, 'systemInstruction')).filter((p) => typeof field(p, 'text') === 'string');
  if (systemParts.length > 0) out.push({ role: 'system', content: systemParts.map((p) => ({ type: 'text', text: field(p, 'text') })) });
  for (const content of list(field(body, 'contents'))) {
    const parts = partsOf(content);
    const responses = parts.map((p) => field(p, 'functionResponse')).filter((r) => r !== undefined);
    for (const r of responses) out.push({ role: 'tool', content: functionResponseText(field(r, 'response')) });
    const neutral = parts
      .filter((p) => typeof field(p, 'text') === 'string' || isImage(p))
      .map((p) => (isImage(p) ? { type: 'image_url', image_url: { url: 'data:image' } } : { type: 'text', text: field(p, 'text') }));
    if (neutral.length > 0 || responses.length === 0) out.push({ role: field(content, 'role') === 'model' ? 'assistant' : 'user', content: neutral });
  }
  return out;
}

/**
 * The emulator's `promptTokenCount`: the OpenAI emulator's chat formula applied to
 * {@link neutralMessages} — 3, plus for the system instruction (if any) and every neutral message
 * its words + 3. A conversation translated faithfully from OpenAI costs the same.
 */
export function geminiPromptTokens(body: Record<string, unknown>): number {
  return chatPromptTokens(neutralMessages(body));
}

export interface GeminiPlan {
  call: { name: string; args: Record<string, string> } | null;
  text: string;
  finishReason: 'STOP' | 'MAX_TOKENS';
  candidateCount: number;
  promptTokens: number;
  /** Output tokens of one candidate: words of the text, or words of the JSON args + 5 for a call. */
  tokensPerCandidate: number;
}

/**
 * What the emulated model answers: a functionCall (finishReason STOP) when declarations are offered,
 * the mode is not NONE and the last content is a user turn without function responses (the first
 * allowed one under ANY, else the one the user names, else the first: chosenToolIndex); otherwise the shared reply text with stopSequences
 * and maxOutputTokens applied (0 means unset, as in proto3).
 */
export function planGemini(body: Record<string, unknown>, script: ModelScript | null = null): GeminiPlan {
  const contents = list(field(body, 'contents'));
  const last = contents[contents.length - 1];
  const neutral = neutralMessages(body);
  const promptTokens = chatPromptTokens(neutral);
  const config = field(body, 'generationConfig');
  const candidateCount = (field(config, 'candidateCount') as number | undefined) ?? 1;
  const calling = field(field(body, 'toolConfig'), 'functionCallingConfig');
  const mode = String(field(calling, 'mode') ?? 'AUTO');
  const declarations = declarationsOf(body);
  const lastIsUserAsk = field(last, 'role') !== 'model' && countParts(last, 'functionResponse') === 0;
  const scripted = script?.(scriptView(neutral, declarations.map((d) => String(d.name))));
  if (scripted && 'tool' in scripted) return { call: { name: scripted.tool, args: scripted.input as Record<string, string> }, text: '', finishReason: 'STOP', candidateCount, promptTokens, tokensPerCandidate: toolCallTokens(scripted.input) };
  if (scripted) return { call: null, text: scripted.text, finishReason: 'STOP', candidateCount, promptTokens, tokensPerCandidate: countTokens(scripted.text) };
  if (declarations.length > 0 && mode !== 'NONE' && lastIsUserAsk) {
    const allowed = list(field(calling, 'allowedFunctionNames'));
    const declaration = declarations.find((d) => allowed.includes(d.name)) ?? declarations[chosenToolIndex(declarations.map((d) => String(d.name)), textOf(neutral[neutral.length - 1]?.content))];
    const args = argumentsFor((field(declaration, 'parameters') ?? field(declaration, 'parametersJsonSchema')) as ArgumentSchema | undefined);
    return { call: { name: String(declaration.name), args }, text: '', finishReason: 'STOP', candidateCount, promptTokens, tokensPerCandidate: toolCallTokens(args) };
  }
  const max = field(config, 'maxOutputTokens') as number | undefined;
  const cut = cutAtStop(replyText(neutral as Parameters<typeof replyText>[0]), list(field(config, 'stopSequences')) as string[]);
  const limited = limitText(cut.text, max ? max : undefined, undefined);
  return {
    call: null,
    text: limited.text,
    finishReason: limited.finish === 'length' ? 'MAX_TOKENS' : 'STOP',
    candidateCount,
    promptTokens,
    tokensPerCandidate: countTokens(limited.text),
  };
}
