import { z } from 'zod';
import { modelIdSchema, toolParametersSchema } from '../openai/request-schemas.ts';

/**
 * OpenAI Responses request bodies (POST /v1/responses). Objects are loose: OpenAI adds fields and
 * item types often, and on pass-through they must reach OpenAI untouched. Only what Patchbay reads
 * is checked; input items are checked one by one in decode-request.ts, which names the item.
 */

const functionTool = z.looseObject({ type: z.literal('function'), name: z.string().min(1), description: z.string().nullish(), parameters: toolParametersSchema.nullish(), strict: z.boolean().nullish() });
/** Hosted tools (web_search, file_search, computer_use_preview ...) and custom tools: forwarded to OpenAI, refused elsewhere. */
const otherTool = z.looseObject({ type: z.string().min(1) });

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
  z.looseObject({ type: z.string().min(1) }),
]);

const textFormat = z.union([
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({ type: z.literal('json_schema'), name: z.string().min(1), schema: z.record(z.string(), z.unknown()), strict: z.boolean().nullish(), description: z.string().nullish() }),
]);

export const responsesRequestSchema = z.looseObject({
  model: modelIdSchema,
  input: z.union([z.string(), z.array(z.looseObject({ type: z.string().optional() })).min(1, 'must have at least one item: Patchbay is stateless, so send the whole conversation')]),
  instructions: z.string().nullish(),
  tools: z.array(z.union([functionTool, otherTool])).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(16).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  text: z.looseObject({ format: textFormat.optional() }).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
});

export type ResponsesRequestBody = z.infer<typeof responsesRequestSchema>;
