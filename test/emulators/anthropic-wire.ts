import { createHash } from 'node:crypto';
import { chatPromptTokens, countTokens, limitText, replyText, textOf } from './openai-emulator.ts';
import { argumentsFor, chosenToolIndex, cutAtStop, isRecord, randomAlnum, resultText, scriptView, toolCallTokens, type ArgumentSchema, type ModelScript, type NeutralMessage } from './emulator-common.ts';

/**
 * Anthropic Messages API request rules and the emulated model's answer, written from the public wire
 * format (../shared/reference/provider-wire.md §2, the anthropic-sdk-typescript types, and error
 * bodies quoted in public issue threads). The HTTP side lives in anthropic-emulator.ts.
 */

export interface AnthropicModelInfo {
  displayName: string;
  createdAt: string;
  maxTokens: number;
  /** Sonnet 4.5 and Haiku 4.5 reject `temperature` together with `top_p` (§2.2 [observed]). */
  rejectsTemperatureWithTopP: boolean;
}

/**
 * The models the emulated organisation serves. The 5.5 family is each tier's default in Claude
 * Code 2.1.332 (what it asks for with no model set, observed 2026-11-29), with the output limit
 * its own model table gives (128,000); their ids have no date suffix, and the dates here are the
 * emulator's own.
 */
export const ANTHROPIC_MODELS: Record<string, AnthropicModelInfo> = {
  'claude-opus-5-5': { displayName: 'Claude Opus 5.5', createdAt: '2026-10-21T00:00:00Z', maxTokens: 128000, rejectsTemperatureWithTopP: true },
  'claude-sonnet-5-5': { displayName: 'Claude Sonnet 5.5', createdAt: '2026-10-14T00:00:00Z', maxTokens: 128000, rejectsTemperatureWithTopP: true },
  'claude-haiku-5-5': { displayName: 'Claude Haiku 5.5', createdAt: '2026-10-07T00:00:00Z', maxTokens: 128000, rejectsTemperatureWithTopP: true },
  'claude-opus-4-5-20251101': { displayName: 'Claude Opus 4.5', createdAt: '2025-11-01T00:00:00Z', maxTokens: 64000, rejectsTemperatureWithTopP: false },
  'claude-haiku-4-5-20251001': { displayName: 'Claude Haiku 4.5', createdAt: '2025-10-01T00:00:00Z', maxTokens: 64000, rejectsTemperatureWithTopP: true },
  'claude-sonnet-4-5-20250929': { displayName: 'Claude Sonnet 4.5', createdAt: '2025-09-29T00:00:00Z', maxTokens: 64000, rejectsTemperatureWithTopP: true },
};

/** Aliases the API resolves to dated ids (§2.5: "also resolves aliases"). */
export const ANTHROPIC_ALIASES: Record<string, string> = {
  'claude-opus-4-5': 'claude-opus-4-5-20251101',
  'claude-haiku-4-5': 'claude-haiku-4-5-20251001',
  'claude-sonnet-4-5': 'claude-sonnet-4-5-20250929',
};

export type AnthropicBlock = {
  type: string;
  text?: unknown;
  source?: { type?: string; media_type?: string; data?: string; url?: string };
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
};
type AnthropicMessage = { role: string; content: string | AnthropicBlock[] };
type AnthropicTool = { name: string; type?: string; defer_loading?: boolean; input_schema?: ArgumentSchema & Record<string, unknown> };

/** The beta that lets mid-conversation system messages add and remove tools (anthropic-sdk-typescript's AnthropicBeta). */
export const TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01';
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
export type OutputBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, string> }
  | { type: 'thinking'; thinking: string; signature: string };

/**
 * The signature the emulated model puts on its thinking (extended thinking, §2.3): opaque to
 * clients, checked when the block is replayed, as Anthropic does ("Invalid signature in thinking block").
 */
export function thinkingSignature(thinking: string): string {
  return Buffer.from(`emu1:${createHash('sha256').update(thinking).digest('hex')}`).toString('base64');
}

/**
 * The signature of thinking sent with `display: "omitted"` (§1.5 of ingress-wire.md): the block
 * carries no text, and the signature alone stands for the thinking, so the block replayed with its
 * empty text is valid.
 */
export function omittedThinkingSignature(thinking: string): string {
  return Buffer.from(`emu1:omitted:${createHash('sha256').update(thinking).digest('hex')}`).toString('base64');
}

function validSignature(thinking: string, signature: string): boolean {
  if (signature === thinkingSignature(thinking)) return true;
  return thinking === '' && Buffer.from(signature, 'base64').toString().startsWith('emu1:omitted:');
}

/** The emulated model's extended thinking about a conversation. */
function thinkingAbout(neutral: NeutralMessage[]): string {
  const text = replyText(neutral as Parameters<typeof replyText>[0]);
  return `The user wants an answer. ${text}`;
}

export interface WireError {
  status: number;
  type: string;
  message: string;
}

const invalid = (message: string): WireError => ({ status: 400, type: 'invalid_request_error', message });
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

export function resolveModel(model: string): string | undefined {
  if (ANTHROPIC_MODELS[model]) return model;
  return ANTHROPIC_ALIASES[model];
}

function blocksOf(message: AnthropicMessage): AnthropicBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** Everything the real API rejects that an adapter could plausibly send. Returns the first problem, or null. */
export function validateMessagesRequest(body: Record<string, unknown>, betas: readonly string[] = []): WireError | null {
  if (body.model === undefined) return invalid('model: Field required');
  if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 0) return invalid('max_tokens: Input should be a valid integer greater than or equal to 0');
  if (body.messages === undefined) return invalid('messages: Field required');
  if (!Array.isArray(body.messages)) return invalid('messages: Input should be a valid list');
  const messages = body.messages as AnthropicMessage[];
  for (const [i, m] of messages.entries()) {
    if (!isRecord(m)) return invalid(`messages.${i}: Input should be a valid dictionary`);
    // Mid-conversation system messages (BetaMessageParam's role 'system', 2026-05).
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system') return invalid(`messages.${i}.role: Input should be 'user', 'assistant' or 'system'`);
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return invalid(`messages.${i}.content: Input should be a valid string or a valid list`);
  }
  if (body.temperature !== undefined) {
    if (typeof body.temperature !== 'number') return invalid('temperature: Input should be a valid number');
    if (body.temperature > 1) return invalid('temperature: Input should be less than or equal to 1');
    if (body.temperature < 0) return invalid('temperature: Input should be greater than or equal to 0');
  }
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences) || body.stop_sequences.some((s) => typeof s !== 'string')) return invalid('stop_sequences: Input should be a valid list of strings');
    if (body.stop_sequences.some((s) => s === '')) return invalid('stop_sequences: each stop sequence must be non-empty');
    if (body.stop_sequences.some((s) => (s as string).trim() === '')) return invalid('stop_sequences: each stop sequence must contain non-whitespace');
  }
  const tools = body.tools as AnthropicTool[] | undefined;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return invalid('tools: Input should be a valid list');
    for (const [i, t] of tools.entries()) {
      if (!isRecord(t) || typeof t.name !== 'string') return invalid(`tools.${i}.custom.name: Field required`);
      if (!/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) return invalid(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      if (t.input_schema === undefined) return invalid(`tools.${i}.custom.input_schema: Field required`);
      if (!isRecord(t.input_schema) || t.input_schema.type !== 'object') return invalid(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
      if (['oneOf', 'anyOf', 'allOf'].some((k) => k in t.input_schema!)) return invalid(`tools.${i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`);
    }
  }
  if (tools && tools.length > 0 && tools.every((t) => t.defer_loading === true)) return invalid('tools: at least one tool must not have defer_loading set to true');
  const outputConfig = body.output_config as { effort?: unknown; format?: { type?: unknown; schema?: unknown } | null } | undefined;
  if (outputConfig !== undefined) {
    if (!isRecord(outputConfig)) return invalid('output_config: Input should be a valid dictionary');
    if (outputConfig.effort !== undefined && !EFFORTS.includes(String(outputConfig.effort))) return invalid(`output_config.effort: Input should be ${EFFORTS.map((e) => `'${e}'`).join(', ')}`);
    const format = outputConfig.format;
    if (format != null && (format.type !== 'json_schema' || !isRecord(format.schema))) return invalid('output_config.format.json_schema.schema: Field required');
  }
  const toolChanges = validateToolChanges(messages, tools ?? [], betas);
  if (toolChanges) return toolChanges;
  const model = resolveModel(String(body.model));
  if (!model) return { status: 404, type: 'not_found_error', message: `model: ${String(body.model)}` };
  const info = ANTHROPIC_MODELS[model];
  if ((body.max_tokens as number) > info.maxTokens) {
    return invalid(`max_tokens: ${String(body.max_tokens)} > ${info.maxTokens}, which is the maximum allowed number of output tokens for ${model}`);
  }
  if (info.rejectsTemperatureWithTopP && body.temperature !== undefined && body.top_p !== undefined) {
    return invalid('`temperature` and `top_p` cannot both be specified for this model. Please use only one.');
  }
  if (body.tool_choice !== undefined && (!tools || tools.length === 0) && (body.tool_choice as { type?: string }).type !== 'none') {
    return invalid('tool_choice may only be specified while providing tools.');
  }
  if (messages.length === 0) return invalid('messages: at least one message is required');
  const thinking = body.thinking as { type?: string; budget_tokens?: unknown } | undefined;
  if (thinking !== undefined) {
    if (!isRecord(thinking) || !['enabled', 'disabled', 'adaptive'].includes(String(thinking.type))) return invalid("thinking: Input tag found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'");
    if (thinking.type === 'enabled') {
      if (!Number.isInteger(thinking.budget_tokens) || (thinking.budget_tokens as number) < 1024) return invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
      if ((thinking.budget_tokens as number) >= (body.max_tokens as number)) return invalid('`max_tokens` must be greater than `thinking.budget_tokens`.');
    }
  }
  return validateTurns(messages) ?? (thinking?.type === 'enabled' ? validateThinkingTurn(messages) : null);
}

/**
 * Extended thinking with tool use (extended-thinking guide, "Preserving thinking blocks"): while
 * the model is in a tool loop (the last message answers tool calls), the assistant message it
 * continues must begin with its thinking; the wording is the API's, as quoted in public threads.
 */
function validateThinkingTurn(messages: AnthropicMessage[]): WireError | null {
  const last = messages[messages.length - 1];
  if (last.role !== 'user' || blocksOf(last)[0]?.type !== 'tool_result') return null;
  const i = messages.map((m) => m.role).lastIndexOf('assistant');
  if (i < 0) return null;
  const first = blocksOf(messages[i])[0]?.type;
  if (first === 'thinking' || first === 'redacted_thinking') return null;
  return invalid(
    `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}

/**
 * Tool search and tool changes, from Anthropic's tool-search and tool-reference pages and the SDK
 * types: a `tool_reference` (in a tool_result) names a tool of `tools` marked defer_loading; a
 * `tool_addition` / `tool_removal` (a mid-conversation system message's block, under the
 * tool-changes beta) names a tool of `tools`. The messages are paraphrased, not quoted.
 */
function validateToolChanges(messages: AnthropicMessage[], tools: AnthropicTool[], betas: readonly string[]): WireError | null {
  const names = new Set(tools.map((t) => t.name));
  const deferred = new Set(tools.filter((t) => t.defer_loading === true).map((t) => t.name));
  for (const [i, m] of messages.entries()) {
    for (const [j, b] of blocksOf(m).entries()) {
      if (b.type === 'tool_addition' || b.type === 'tool_removal') {
        if (m.role !== 'system') return invalid(`messages.${i}.content.${j}: ${b.type} blocks can only appear in system messages`);
        if (!betas.includes(TOOL_CHANGES_BETA)) return invalid(`messages.${i}.content.${j}: ${b.type} blocks need the ${TOOL_CHANGES_BETA} beta`);
        const tool = (b as { tool?: { type?: unknown; name?: unknown } }).tool;
        if (!isRecord(tool) || tool.type !== 'tool_reference' || typeof tool.name !== 'string') return invalid(`messages.${i}.content.${j}.${b.type}.tool: Input should be a tool reference`);
        if (!names.has(tool.name)) return invalid(`messages.${i}.content.${j}.${b.type}.tool: tool '${tool.name}' is not in tools`);
      }
      if (b.type !== 'tool_result' || !Array.isArray(b.content)) continue;
      for (const [k, inner] of (b.content as { type?: unknown; tool_name?: unknown }[]).entries()) {
        if (inner?.type !== 'tool_reference') continue;
        if (typeof inner.tool_name !== 'string' || !names.has(inner.tool_name)) return invalid(`messages.${i}.content.${j}.content.${k}: tool reference '${String(inner.tool_name)}' not found in tools`);
        if (!deferred.has(inner.tool_name)) return invalid(`messages.${i}.content.${j}.content.${k}: tool reference '${inner.tool_name}' names a tool without defer_loading`);
      }
    }
  }
  return null;
}

/**
 * The tools the model sees when it answers: those not deferred, a deferred one from the
 * tool_reference that loads it, and the changes of system messages in order (as the SDK's
 * BetaToolRunner folds tool_addition / tool_removal).
 */
export function visibleTools(body: Record<string, unknown>): AnthropicTool[] {
  const tools = (body.tools as AnthropicTool[] | undefined) ?? [];
  const visible = new Set(tools.filter((t) => t.defer_loading !== true).map((t) => t.name));
  for (const m of body.messages as AnthropicMessage[]) {
    for (const b of blocksOf(m)) {
      if (b.type === 'tool_result' && Array.isArray(b.content)) {
        for (const inner of b.content as { type?: unknown; tool_name?: unknown }[]) if (inner?.type === 'tool_reference') visible.add(String(inner.tool_name));
      }
      const tool = (b as { tool?: { name?: unknown } }).tool;
      if (b.type === 'tool_addition') visible.add(String(tool?.name));
      if (b.type === 'tool_removal') visible.delete(String(tool?.name));
    }
  }
  return tools.filter((t) => visible.has(t.name));
}

/** Content and tool_use/tool_result pairing rules (§2.2 "Ordering rule"). */
function validateTurns(messages: AnthropicMessage[]): WireError | null {
  for (const [i, m] of messages.entries()) {
    const blocks = blocksOf(m);
    const isFinalAssistant = i === messages.length - 1 && m.role === 'assistant';
    if ((m.content === '' || blocks.length === 0) && !isFinalAssistant) {
      return invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    if (isFinalAssistant && blocks.some((b) => b.type === 'text' && typeof b.text === 'string' && /\s$/.test(b.text))) {
      return invalid('messages: final assistant content cannot end with trailing whitespace');
    }
    for (const [j, b] of blocks.entries()) {
      if (!isRecord(b)) return invalid(`messages.${i}.content.${j}: Input should be a valid dictionary`);
      if (b.type === 'text' && (typeof b.text !== 'string' || b.text === '') && Array.isArray(m.content)) return invalid('messages: text content blocks must be non-empty');
      if (b.type === 'image') {
        const source = b.source;
        if (source?.type === 'base64') {
          if (!IMAGE_TYPES.includes(source.media_type ?? '')) {
            return invalid(`messages.${i}.content.${j}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
          }
          if (typeof source.data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data)) {
            return invalid(`messages.${i}.content.${j}.image.source.base64.data: Invalid base64 data`);
          }
        } else if (source?.type === 'url') {
          if (typeof source.url !== 'string' || !/^https?:\/\//.test(source.url)) return invalid(`messages.${i}.content.${j}.image.source.url.url: Input should be a valid URL`);
        } else {
          return invalid(`messages.${i}.content.${j}.image.source: Input tag '${String(source?.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url'`);
        }
      }
      if (b.type === 'thinking') {
        const block = b as AnthropicBlock & { thinking?: unknown; signature?: unknown };
        if (m.role !== 'assistant') return invalid(`messages.${i}.content.${j}: thinking blocks can only appear in assistant messages`);
        if (typeof block.signature !== 'string' || block.signature === '') return invalid(`messages.${i}.content.${j}.thinking.signature: Field required`);
        if (typeof block.thinking !== 'string' || !validSignature(block.thinking, block.signature)) return invalid(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
      }
      // The emulated model never redacts its thinking, so any redacted_thinking is one it did not write.
      if (b.type === 'redacted_thinking') return invalid(`messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`);
      if (b.type === 'tool_result' && m.role !== 'user') return invalid(`messages.${i}.content.${j}: tool_result blocks can only appear in user messages`);
      if (b.type === 'tool_use' && m.role !== 'assistant') return invalid(`messages.${i}.content.${j}: tool_use blocks can only appear in assistant messages`);
    }
    // tool_result blocks must come first in their message.
    const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
    const lastResult = blocks.map((b) => b.type).lastIndexOf('tool_result');
    const pending = i > 0 ? blocksOf(messages[i - 1]).filter((b) => b.type === 'tool_use') : [];
    if (firstOther !== -1 && lastResult > firstOther) {
      return invalid(
        `messages.${i}: Did not find ${Math.max(pending.length, 1)} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`,
      );
    }
    const results = blocks.filter((b) => b.type === 'tool_result');
    const pendingIds = new Set(pending.map((b) => b.id));
    const stray = results.find((b) => !pendingIds.has(b.tool_use_id));
    if (stray) {
      return invalid(
        `messages.${i}.content.${blocks.indexOf(stray)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(stray.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
    // Every tool_use in an assistant turn needs its tool_result in the next message.
    if (m.role === 'assistant' && i < messages.length - 1) {
      const uses = blocks.filter((b) => b.type === 'tool_use');
      const answered = new Set(blocksOf(messages[i + 1]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      const missing = uses.filter((b) => !answered.has(b.id)).map((b) => b.id);
      if (missing.length > 0) {
        return invalid(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
  }
  return null;
}

/**
 * The conversation in the neutral OpenAI-ish shape the shared reply/token rules read: the top-level
 * system prompt first (as one system message), then each message; a user message's `tool_result`
 * blocks become one `tool` message each (before the user's remaining text/images, if any); images
 * become `image_url` parts; `tool_use` blocks carry no text.
 */
export function neutralMessages(body: Record<string, unknown>): NeutralMessage[] {
  const out: NeutralMessage[] = [];
  const system = body.system;
  if (typeof system === 'string' && system !== '') out.push({ role: 'system', content: system });
  if (Array.isArray(system) && system.length > 0) out.push({ role: 'system', content: system.map((b: AnthropicBlock) => ({ type: 'text', text: b.text })) });
  for (const m of body.messages as AnthropicMessage[]) {
    if (typeof m.content === 'string') {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    for (const b of m.content.filter((b) => b.type === 'tool_result')) out.push({ role: 'tool', content: resultText(b.content) });
    const parts = m.content
      .filter((b) => b.type === 'text' || b.type === 'image')
      .map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image_url', image_url: { url: b.source?.url ?? `data:${b.source?.media_type};base64,...` } }));
    if (parts.length > 0 || !m.content.some((b) => b.type === 'tool_result')) out.push({ role: m.role, content: parts });
  }
  return out;
}

/**
 * The emulator's `usage.input_tokens`: the OpenAI emulator's chat formula applied to
 * {@link neutralMessages} — 3, plus for the system prompt (if any) and every neutral message its
 * words + 3. So a conversation translated faithfully from OpenAI costs the same number of tokens.
 */
export function anthropicInputTokens(body: Record<string, unknown>): number {
  return chatPromptTokens(neutralMessages(body));
}

export interface AnthropicPlan {
  blocks: OutputBlock[];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stopSequence: string | null;
  /** Input tokens outside the prompt cache (Anthropic's input_tokens). */
  inputTokens: number;
  outputTokens: number;
  /** The prompt-cache part of the input, when the request marks a prefix (see AnthropicEmulator.withCache). */
  cache?: { read: number; write5m: number; write1h: number };
}

/**
 * What the emulated model answers. Tools: when tools are offered, tool_choice is not `none` and the
 * last message is a user turn without tool results, it calls the tool named by `{type:"tool"}`,
 * else the one the user names, else the first (chosenToolIndex), optionally after a short text block (`preamble`, only for `auto`). Otherwise it
 * replies with the shared reply text, honouring stop_sequences and max_tokens.
 */
export function planReply(body: Record<string, unknown>, preamble: string | null, script: ModelScript | null = null): AnthropicPlan {
  const messages = body.messages as AnthropicMessage[];
  const neutral = neutralMessages(body);
  const inputTokens = chatPromptTokens(neutral);
  const last = messages[messages.length - 1];
  const tools = visibleTools(body);
  const choice = (body.tool_choice as { type?: string; name?: string } | undefined) ?? { type: 'auto' };
  const lastIsUserAsk = last.role === 'user' && !blocksOf(last).some((b) => b.type === 'tool_result');
  const thinks = (body.thinking as { type?: string } | undefined)?.type === 'enabled';
  const thought = thinks ? thinkingAbout(neutral) : null;
  const omitted = (body.thinking as { display?: string } | undefined)?.display === 'omitted';
  const thinkingBlocks: OutputBlock[] = !thought ? [] : omitted ? [{ type: 'thinking', thinking: '', signature: omittedThinkingSignature(thought) }] : [{ type: 'thinking', thinking: thought, signature: thinkingSignature(thought) }];
  const thinkingTokens = thought ? countTokens(thought) : 0;
  const scripted = script?.(scriptView(neutral, tools.map((t) => t.name)));
  if (scripted && 'tool' in scripted) {
    const blocks: OutputBlock[] = [...thinkingBlocks, { type: 'tool_use', id: `toolu_01${randomAlnum(22)}`, name: scripted.tool, input: scripted.input as Record<string, string> }];
    return { blocks, stopReason: 'tool_use', stopSequence: null, inputTokens, outputTokens: thinkingTokens + toolCallTokens(scripted.input) };
  }
  if (scripted) return { blocks: [...thinkingBlocks, { type: 'text', text: scripted.text }], stopReason: 'end_turn', stopSequence: null, inputTokens, outputTokens: thinkingTokens + countTokens(scripted.text) };
  if (tools.length > 0 && choice.type !== 'none' && lastIsUserAsk) {
    const tool = (choice.type === 'tool' && tools.find((t) => t.name === choice.name)) || tools[chosenToolIndex(tools.map((t) => t.name), textOf(neutral[neutral.length - 1]?.content))];
    const input = argumentsFor(tool.input_schema);
    const blocks: OutputBlock[] = [...thinkingBlocks];
    if (preamble && choice.type === 'auto') blocks.push({ type: 'text', text: preamble });
    blocks.push({ type: 'tool_use', id: `toolu_01${randomAlnum(22)}`, name: tool.name, input });
    const outputTokens = thinkingTokens + toolCallTokens(input) + (preamble && choice.type === 'auto' ? countTokens(preamble) : 0);
    return { blocks, stopReason: 'tool_use', stopSequence: null, inputTokens, outputTokens };
  }
  const schema = (body.output_config as { format?: { schema?: { properties?: Record<string, unknown> } } | null } | undefined)?.format?.schema;
  const answer = schema ? JSON.stringify(Object.fromEntries(Object.keys(schema.properties ?? {}).map((name) => [name, `${name}-value`]))) : replyText(neutral as Parameters<typeof replyText>[0]);
  const cut = cutAtStop(answer, (body.stop_sequences as string[] | undefined) ?? []);
  const limited = limitText(cut.text, body.max_tokens as number, undefined);
  const stopReason = limited.finish === 'length' ? 'max_tokens' : cut.matched !== null ? 'stop_sequence' : 'end_turn';
  return {
    blocks: limited.text ? [...thinkingBlocks, { type: 'text', text: limited.text }] : thinkingBlocks,
    stopReason,
    stopSequence: stopReason === 'stop_sequence' ? cut.matched : null,
    inputTokens,
    outputTokens: thinkingTokens + countTokens(limited.text),
  };
}
