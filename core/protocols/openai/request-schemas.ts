import { z } from 'zod';

/**
 * Request bodies of the /v1 endpoints, with the spec's limits. Objects are loose: fields Patchbay
 * does not interpret (seed, user, response_format ...) travel on to OpenAI-compatible upstreams.
 */

/** Model ids are short names; a longer one is a mistake, and it would be stored in every usage row and echoed in headers. */
export const MAX_MODEL_ID_CHARS = 256;

/** `model` of every /v1 body. Control characters cannot be part of any provider's model id, and would break headers and logs. */
export const modelIdSchema = z
  .string()
  .min(1, 'must name a model')
  .max(MAX_MODEL_ID_CHARS)
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters (CR, LF, NUL, tab ...)');

/**
 * Generations one request may ask of upstreams. Providers without native `n` (Anthropic) and
 * completions served one prompt at a time (Together, chat-only providers) make one upstream call
 * per generation, so this bounds the calls a single request fans out to.
 */
export const MAX_GENERATIONS = 64;
/** Prompts in one /v1/completions request (each may become its own upstream call). */
export const MAX_PROMPTS = 64;

const stopSchema = z.union([z.string(), z.array(z.string()).max(4, 'at most 4 stop sequences are allowed')]).nullish();

const textPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  z.looseObject({ type: z.literal('input_audio'), input_audio: z.looseObject({ data: z.string(), format: z.string() }) }),
  z.looseObject({ type: z.literal('file'), file: z.looseObject({}) }),
  z.looseObject({ type: z.literal('refusal'), refusal: z.string() }),
]);

const toolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const systemMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer']),
  content: z.union([z.string(), z.array(textPartSchema)]),
  name: z.string().optional(),
});
const userMessageSchema = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(contentPartSchema)]),
  name: z.string().optional(),
});
const assistantMessageSchema = z
  .looseObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(contentPartSchema)]).nullish(),
    tool_calls: z.array(toolCallSchema).optional(),
    name: z.string().optional(),
  })
  .refine((m) => m.content != null || (m.tool_calls && m.tool_calls.length > 0), {
    message: 'an assistant message needs content or tool_calls',
    path: ['content'],
  });
const toolMessageSchema = z.looseObject({
  role: z.literal('tool'),
  content: z.union([z.string(), z.array(textPartSchema)]),
  tool_call_id: z.string().min(1),
});

export const chatMessageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Tool schemas translated for Gemini and Anthropic are walked recursively; real ones stay far below these. */
export const MAX_TOOL_SCHEMA_DEPTH = 32;
export const MAX_TOOL_SCHEMA_NODES = 10_000;

/** Depth and node count of a JSON value, walked with a stack (no recursion), stopping once past the limits. */
export function withinSchemaLimits(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (++nodes > MAX_TOOL_SCHEMA_NODES || depth > MAX_TOOL_SCHEMA_DEPTH) return false;
    if (node !== null && typeof node === 'object') for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return true;
}

export const toolParametersSchema = z
  .record(z.string(), z.unknown())
  .refine(withinSchemaLimits, `must be nested at most ${MAX_TOOL_SCHEMA_DEPTH} levels deep and have at most ${MAX_TOOL_SCHEMA_NODES} keywords and values`);

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: toolParametersSchema.optional(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
]);

const samplingFields = {
  model: modelIdSchema,
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().min(1).max(MAX_GENERATIONS).nullish(),
  stop: stopSchema,
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  seed: z.number().int().nullish(),
  user: z.string().optional(),
};

export const chatRequestSchema = z.looseObject({
  ...samplingFields,
  messages: z.array(chatMessageSchema).min(1, 'must contain at least one message'),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  tools: z.array(functionToolSchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

export const completionRequestSchema = z
  .looseObject({
    ...samplingFields,
    // The count is checked after the union: inside it, a too-long list of strings would be reported as a bad list of token ids.
    prompt: z
      .union([
        z.string(),
        // Token ids before strings: a union tries its options in order, and a long id array
        // checked against the string option first collects an issue per id (60,000 ids: ~60 ms).
        z.array(z.number().int()).min(1),
        z.array(z.array(z.number().int()).min(1)).min(1),
        z.array(z.string()).min(1, 'must contain at least one prompt'),
      ])
      .refine((prompt) => !Array.isArray(prompt) || typeof prompt[0] === 'number' || prompt.length <= MAX_PROMPTS, `must contain at most ${MAX_PROMPTS} prompts; send the rest in another request`),
    max_tokens: z.number().int().min(0).nullish(),
    best_of: z.number().int().min(1).max(20).nullish(),
    logprobs: z.number().int().min(0).max(5).nullish(),
    echo: z.boolean().nullish(),
    suffix: z.string().nullish(),
  })
  .refine((r) => r.best_of == null || r.best_of >= (r.n ?? 1), { message: 'best_of must be at least n', path: ['best_of'] })
  .refine((r) => generations(r) <= MAX_GENERATIONS, {
    message: `asks for more than ${MAX_GENERATIONS} generations (prompts × n, or prompts × best_of); send fewer prompts or a smaller n`,
    path: ['n'],
  })
  .refine((r) => !(r.stream && r.best_of != null && r.best_of > 1), { message: 'best_of cannot be combined with stream', path: ['best_of'] });
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

/** Upstream generations a completions request asks for: a list of token ids is one prompt. */
function generations(request: { prompt: unknown; n?: number | null; best_of?: number | null }): number {
  const prompts = Array.isArray(request.prompt) && request.prompt.length > 0 && typeof request.prompt[0] !== 'number' ? request.prompt.length : 1;
  return prompts * Math.max(request.n ?? 1, request.best_of ?? 1);
}

export const embeddingRequestSchema = z.looseObject({
  model: modelIdSchema,
  input: z.union([
    z.string().min(1, 'must not be empty'),
    // Token ids first, as for completions' prompt.
    z.array(z.number().int()).min(1),
    z.array(z.array(z.number().int()).min(1)).min(1).max(2048),
    z.array(z.string().min(1, 'must not be empty')).min(1, 'must contain at least one input').max(2048),
  ]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().min(1).optional(),
  user: z.string().optional(),
});
export type EmbeddingRequest = z.infer<typeof embeddingRequestSchema>;
