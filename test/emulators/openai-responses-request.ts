/**
 * What OpenAI's POST /v1/responses accepts, as far as the emulator checks it: written from OpenAI's
 * public reference (the openai-node `ResponseCreateParams` and `Tool` types, the API reference's
 * error bodies) and from what Codex CLI sends it (codex-rs: `client_metadata`, `prompt_cache_key`,
 * the `namespace` tool grouping function tools, `web_search` with `external_web_access`) and OpenAI's
 * published OpenAPI spec (test/spec: `AdditionalToolsItemParam`, the input item Codex 0.171.0
 * declares its tools in), never from Patchbay's codec. OpenAI refuses a body field it does not know ("Unknown parameter") and a
 * tool type it does not know ("Invalid value"), so an unknown field reaching the emulator is a bug
 * in what Patchbay forwards.
 */

export interface ResponsesRequestError {
  message: string;
  code: string;
  param: string;
}

/** Top-level fields of ResponseCreateParams, plus `client_metadata`, which Codex sends on every request. */
const KNOWN_FIELDS = new Set([
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'max_tool_calls',
  'temperature', 'top_p', 'top_logprobs', 'reasoning', 'text', 'metadata', 'user', 'safety_identifier', 'store', 'stream',
  'stream_options', 'previous_response_id', 'conversation', 'background', 'prompt', 'prompt_cache_key', 'prompt_cache_retention',
  'include', 'truncation', 'service_tier', 'client_metadata',
]);

/** `include` values of the reference (ResponseIncludable). */
const INCLUDABLE = new Set([
  'reasoning.encrypted_content', 'file_search_call.results', 'web_search_call.results', 'web_search_call.action.sources',
  'message.input_image.image_url', 'computer_call_output.output.image_url', 'code_interpreter_call.outputs', 'message.output_text.logprobs',
]);

/** Tool types of the reference's `Tool` union (hosted tools run by OpenAI, and the caller's own). */
const TOOL_TYPES = [
  'function', 'custom', 'namespace', 'web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11',
  'file_search', 'computer_use_preview', 'code_interpreter', 'image_generation', 'local_shell', 'shell', 'apply_patch', 'mcp',
];

/** A function name OpenAI accepts. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const invalid = (param: string, message: string, code = 'invalid_value'): ResponsesRequestError => ({ param, message, code });

/** The first thing OpenAI would refuse in this body, or null. */
export function validateResponsesRequest(body: Record<string, unknown>): ResponsesRequestError | null {
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) return invalid(key, `Unknown parameter: '${key}'.`, 'unknown_parameter');
  if (body.client_metadata !== undefined) {
    if (!isRecord(body.client_metadata)) return invalid('client_metadata', "Invalid type for 'client_metadata': expected an object.", 'invalid_type');
    for (const [key, value] of Object.entries(body.client_metadata)) {
      if (typeof value !== 'string') return invalid(`client_metadata.${key}`, `Invalid type for 'client_metadata.${key}': expected a string.`, 'invalid_type');
    }
  }
  if (body.prompt_cache_key !== undefined && typeof body.prompt_cache_key !== 'string') return invalid('prompt_cache_key', "Invalid type for 'prompt_cache_key': expected a string.", 'invalid_type');
  if (body.include !== undefined) {
    if (!Array.isArray(body.include)) return invalid('include', "Invalid type for 'include': expected an array of strings.", 'invalid_type');
    for (const [i, value] of body.include.entries()) {
      if (!INCLUDABLE.has(value as string)) return invalid(`include[${i}]`, `Invalid value: '${String(value)}'. Supported values are: ${[...INCLUDABLE].map((v) => `'${v}'`).join(', ')}.`);
    }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid('tools', "Invalid type for 'tools': expected an array of objects.", 'invalid_type');
    for (const [i, tool] of body.tools.entries()) {
      const problem = validateTool(tool, `tools[${i}]`);
      if (problem) return problem;
    }
  }
  for (const [i, item] of (Array.isArray(body.input) ? body.input : []).entries()) {
    if (!isRecord(item) || item.type !== 'additional_tools') continue;
    const problem = validateAdditionalTools(item, `input[${i}]`);
    if (problem) return problem;
  }
  return null;
}

/** AdditionalToolsItemParam: `role` "developer" and the tools, each a tool as in `tools`. */
function validateAdditionalTools(item: Record<string, unknown>, param: string): ResponsesRequestError | null {
  if (item.role !== 'developer') return invalid(`${param}.role`, `Invalid value: '${String(item.role)}'. Supported values are: 'developer'.`);
  if (!Array.isArray(item.tools)) return invalid(`${param}.tools`, `Missing required parameter: '${param}.tools'.`, 'missing_required_parameter');
  for (const [j, tool] of item.tools.entries()) {
    const problem = validateTool(tool, `${param}.tools[${j}]`);
    if (problem) return problem;
  }
  return null;
}

/**
 * Every tool the model may use at the end of the input: the request's `tools`, then those of each
 * `additional_tools` item (offered from that item on, so all of them when the answer comes).
 */
export function offeredTools(body: Record<string, unknown>): unknown[] {
  const added = (Array.isArray(body.input) ? body.input : []).flatMap((item) => (isRecord(item) && item.type === 'additional_tools' && Array.isArray(item.tools) ? item.tools : []));
  return [...(Array.isArray(body.tools) ? body.tools : []), ...added];
}

function validateTool(tool: unknown, param: string, inNamespace = false): ResponsesRequestError | null {
  if (!isRecord(tool)) return invalid(param, `Invalid type for '${param}': expected an object.`, 'invalid_type');
  const allowed = inNamespace ? ['function', 'custom'] : TOOL_TYPES;
  if (!allowed.includes(tool.type as string)) return invalid(`${param}.type`, `Invalid value: '${String(tool.type)}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(', ')}.`);
  if (tool.type === 'function' || tool.type === 'custom') {
    if (typeof tool.name !== 'string') return invalid(`${param}.name`, `Missing required parameter: '${param}.name'.`, 'missing_required_parameter');
    if (!FUNCTION_NAME.test(tool.name)) return invalid(`${param}.name`, `Invalid '${param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, 'invalid_value');
  }
  if (tool.type === 'namespace') {
    for (const field of ['name', 'description'] as const) {
      if (typeof tool[field] !== 'string') return invalid(`${param}.${field}`, `Missing required parameter: '${param}.${field}'.`, 'missing_required_parameter');
    }
    if (!Array.isArray(tool.tools)) return invalid(`${param}.tools`, `Missing required parameter: '${param}.tools'.`, 'missing_required_parameter');
    for (const [j, inner] of tool.tools.entries()) {
      const problem = validateTool(inner, `${param}.tools[${j}]`, true);
      if (problem) return problem;
    }
  }
  if (tool.type === 'web_search' && tool.external_web_access !== undefined && typeof tool.external_web_access !== 'boolean') {
    return invalid(`${param}.external_web_access`, `Invalid type for '${param}.external_web_access': expected a boolean.`, 'invalid_type');
  }
  return null;
}

/** A function or custom (freeform) tool the model may call: its name, and the namespace it was offered in. */
export interface CallableFunction {
  name: string;
  namespace?: string;
  /** A custom tool: called with free text (`custom_tool_call.input`), not JSON arguments. */
  custom: boolean;
  parameters?: { properties?: Record<string, unknown>; required?: string[] };
}

/** Every function and custom tool the request offers, those inside namespaces included, in order. */
export function callableFunctions(tools: unknown): CallableFunction[] {
  const out: CallableFunction[] = [];
  const callable = (tool: Record<string, unknown>, namespace?: string) => {
    if (tool.type !== 'function' && tool.type !== 'custom') return;
    out.push({ name: String(tool.name), ...(namespace ? { namespace } : {}), custom: tool.type === 'custom', parameters: tool.parameters as CallableFunction['parameters'] });
  };
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (!isRecord(tool)) continue;
    callable(tool);
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) for (const inner of tool.tools) if (isRecord(inner)) callable(inner, String(tool.name));
  }
  return out;
}
