import { isTogetherLogprobs, mapTogetherChatLogprobs, mapTogetherChunkLogprob } from './map-chat-logprobs.ts';
import type { OpenAiQuirks } from './quirks.ts';

/** The parts of a chat choice (of an answer or of a stream chunk) that quirks may rewrite. */
export interface ChatChoiceShape {
  finish_reason?: string | null;
  logprobs?: unknown;
  message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  delta?: { content?: string | null; tool_calls?: unknown };
}

/** OpenAI's finish reason for an upstream's (§7.4: Together's `eos` is `stop`); others unchanged. */
export function mapFinishReason(reason: string, quirks: OpenAiQuirks): string {
  return Object.hasOwn(quirks.finishReasons, reason) ? quirks.finishReasons[reason] : reason;
}

/**
 * Rewrites one chat choice in place into OpenAI's shape; true when anything changed, so the
 * caller re-serialises only then. `topLogprobs` is the number of alternatives the client asked for.
 */
export function mapChatChoice(choice: ChatChoiceShape, quirks: OpenAiQuirks, topLogprobs: number): boolean {
  let changed = false;
  if (choice.finish_reason) {
    const reason = mapFinishReason(choice.finish_reason, quirks);
    if (reason !== choice.finish_reason) {
      choice.finish_reason = reason;
      changed = true;
    }
  }
  if (quirks.normalizesMessages && normalizeMessage(choice)) changed = true;
  if (quirks.integerLogprobs && choice.logprobs != null) {
    if (typeof choice.logprobs === 'number') {
      // A streamed token's log probability; the closing chunk's empty token has none in OpenAI's shape.
      const token = choice.delta?.content ?? '';
      choice.logprobs = token ? mapTogetherChunkLogprob(choice.logprobs, token, topLogprobs) : null;
      changed = true;
    } else if (isTogetherLogprobs(choice.logprobs)) {
      choice.logprobs = mapTogetherChatLogprobs(choice.logprobs, topLogprobs);
      changed = true;
    }
  }
  return changed;
}

/**
 * OpenAI's message shape: `content` always present (null beside tool calls), `refusal` always
 * present (null: Groq's and Together's models never refuse in that field, and the spec requires
 * it), no empty `tool_calls`, and a complete answer's tool calls as `{id, type, function}`
 * (Together's SDK type adds the stream's `index` to them; in a stream delta the index is OpenAI's
 * too, and stays).
 */
function normalizeMessage(choice: ChatChoiceShape): boolean {
  let changed = false;
  const message = choice.message ?? choice.delta;
  if (message && Array.isArray(message.tool_calls) && message.tool_calls.length === 0) {
    delete message.tool_calls;
    changed = true;
  }
  if (!choice.message) return changed;
  if (!('content' in choice.message)) {
    choice.message.content = null;
    changed = true;
  }
  if (!('refusal' in choice.message)) {
    choice.message.refusal = null;
    changed = true;
  }
  if (Array.isArray(choice.message.tool_calls)) {
    for (const call of choice.message.tool_calls as Record<string, unknown>[]) {
      if (call && 'index' in call) {
        delete call.index;
        changed = true;
      }
    }
  }
  return changed;
}

/** OpenAI's service tiers, the spec's ServiceTier enum: what typed clients parse an answer's `service_tier` as. */
const OPENAI_SERVICE_TIERS = new Set(['auto', 'default', 'flex', 'scale', 'priority', 'fast']);

/**
 * An answer's `service_tier` in OpenAI's terms: the upstream's own tier names mapped to OpenAI's
 * (quirks.serviceTiers: Groq's `on_demand` is OpenAI's `default`), a tier OpenAI has no word for
 * left out, since a typed client parsing the field as OpenAI's enum fails on it.
 */
function mapServiceTier(value: { service_tier?: unknown }, quirks: OpenAiQuirks): boolean {
  const tier = value.service_tier;
  if (typeof tier !== 'string' || OPENAI_SERVICE_TIERS.has(tier)) return false;
  const mapped = Object.hasOwn(quirks.serviceTiers, tier) ? quirks.serviceTiers[tier] : undefined;
  if (mapped) value.service_tier = mapped;
  else delete value.service_tier;
  return true;
}

/** Rewrites every choice of a chat answer or chunk, and its service tier; true when anything changed. */
export function mapChatChoices(value: { choices?: unknown; service_tier?: unknown }, quirks: OpenAiQuirks, topLogprobs: number): boolean {
  if (!quirks.mapsChatAnswers || !Array.isArray(value.choices)) return false;
  let changed = mapServiceTier(value, quirks);
  for (const choice of value.choices as ChatChoiceShape[]) {
    if (choice && mapChatChoice(choice, quirks, topLogprobs)) changed = true;
  }
  return changed;
}
