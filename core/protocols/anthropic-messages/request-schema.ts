import { z } from 'zod';
import { modelIdSchema, toolParametersSchema } from '../openai/request-schemas.ts';

/**
 * Anthropic Messages request bodies (POST /v1/messages and /v1/messages/count_tokens). Objects are
 * loose: Anthropic adds fields often (cache_control, citations, betas' fields), and on
 * pass-through they must reach Anthropic untouched. Only what Patchbay reads is checked.
 */

const cacheControl = z.looseObject({ type: z.string() }).nullish();
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });
const imageSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  z.looseObject({ type: z.literal('file'), file_id: z.string().min(1) }),
]);
const imageBlock = z.looseObject({ type: z.literal('image'), source: imageSource });
const documentBlock = z.looseObject({ type: z.literal('document'), source: z.looseObject({ type: z.string() }), title: z.string().nullish() });
const toolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});
const thinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() });
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

/** Server-tool history and newer block types are kept as they are (forwarded to Anthropic, refused elsewhere). */
const otherBlock = z.looseObject({ type: z.string().min(1) });

export const contentBlockSchema = z.union([textBlock, imageBlock, documentBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock, otherBlock]);

const messageSchema = z.looseObject({
  // `system` mid-conversation: accepted by the Messages API since 2026-05 (Claude Code sends them).
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
});

const toolSchema = z.looseObject({
  name: z.string().min(1).max(128),
  type: z.string().nullish(),
  description: z.string().optional(),
  input_schema: toolParametersSchema.optional(),
  /** Kept out of the model's view until a tool search loads it (tool_reference) or a tool_addition adds it. */
  defer_loading: z.boolean().optional(),
});

/** output_config: the answer's structured format (json_schema) and the effort to spend. */
const outputConfigSchema = z.looseObject({
  effort: z.string().min(1).optional(),
  format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()).optional() }).nullish(),
});

const toolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('none') }),
]);

const thinkingSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1) }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive') }),
]);

const common = {
  model: modelIdSchema,
  messages: z.array(messageSchema).min(1).max(100_000),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(toolSchema).max(1000).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingSchema.optional(),
};

export const messagesRequestSchema = z.looseObject({
  ...common,
  max_tokens: z.number().int().min(0),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).max(1000).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  output_config: outputConfigSchema.optional(),
  context_management: z.looseObject({}).nullish(),
});

export const countTokensRequestSchema = z.looseObject(common);

export type MessagesRequestBody = z.infer<typeof messagesRequestSchema>;
export type CountTokensRequestBody = z.infer<typeof countTokensRequestSchema>;
export type ContentBlockParam = z.infer<typeof contentBlockSchema>;
