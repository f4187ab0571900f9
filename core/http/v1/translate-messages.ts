import { ProviderError } from '../../errors/provider-error.ts';
import type { DecodedMessages } from '../../protocols/anthropic-messages/decode-request.ts';
import { encodeMessage } from '../../protocols/anthropic-messages/encode-message.ts';
import { createEncodeState, encodeStreamPart } from '../../protocols/anthropic-messages/encode-stream.ts';
import type { PartStream, StreamPart } from '../../protocols/neutral/stream-part.ts';
import { toOpenAiUsage } from '../../protocols/openai/map-usage.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall, Usage } from '../../providers/provider-adapter.ts';
import { refuseNativeOnly } from '../../providers/refuse-native-only.ts';
import { streamNeutralViaChat } from '../../providers/stream-neutral-via-chat.ts';
import { limitNeutralMaxTokens } from '../../providers/limit-max-tokens.ts';
import { thinkingFor, withChatExtras } from './translate-responses.ts';

/** What the Messages answer needs besides the parts: its id and Patchbay's input estimate for message_start. */
export interface MessageIdentity {
  id: string;
  estimatedInputTokens: number;
}

/** A Messages request for an upstream that does not speak Messages: refused first if it asks for what that upstream cannot do. */
function refuse(decoded: DecodedMessages, call: UpstreamCall): void {
  refuseNativeOnly(decoded.nativeOnly, call.provider.name, call.endpoint, 'an Anthropic model (e.g. anthropic/claude-sonnet-4-5)');
}

/**
 * The adapter's own neutral entry when it has one (Gemini: output_config.effort as a thinking
 * budget); else its OpenAI chat stream, which is then the upstream's wire (the effort as
 * reasoning_effort on a model that reasons). What the upstream has no place for is dropped and said.
 */
function openParts(adapter: ProviderAdapter, decoded: DecodedMessages, call: UpstreamCall): Promise<PartStream> {
  const request = limitNeutralMaxTokens(decoded.request, call);
  const { effort, thinking, contextManagement } = decoded.options;
  const adjustments = call.adjustments;
  if (contextManagement) adjustments?.drop('context_management');
  for (const field of decoded.options.leftOut) adjustments?.drop(field);
  if (adapter.neutral) {
    const budget = request.thinking ?? (effort ? thinkingFor(effort === 'max' ? 'xhigh' : effort, request.maxTokens) : undefined);
    if (effort && !request.thinking && !budget) adjustments?.drop('output_config.effort');
    return adapter.neutral.stream(budget ? { ...request, thinking: budget } : request, call);
  }
  const reasons = call.endpoint.capabilities.has('reasoning');
  if (thinking && !reasons) adjustments?.drop('thinking');
  if (!effort) return streamNeutralViaChat(adapter, request, call);
  const chatEffort = CHAT_EFFORTS.get(effort);
  if (!reasons || !chatEffort) {
    adjustments?.drop('output_config.effort');
    return streamNeutralViaChat(adapter, request, call);
  }
  if (chatEffort !== effort) adjustments?.adjust(`output_config.effort=${chatEffort} (reasoning_effort has no ${effort})`);
  return streamNeutralViaChat(withChatExtras(adapter, { reasoning_effort: chatEffort }), request, call);
}

/** Anthropic's effort levels as the reasoning_effort values OpenAI-compatible upstreams share (their top is high). */
const CHAT_EFFORTS = new Map([['low', 'low'], ['medium', 'medium'], ['high', 'high'], ['xhigh', 'high'], ['max', 'high']]);

/** A whole Message from a non-Anthropic upstream: its answer streamed as neutral parts and collected. */
export async function translateMessage(adapter: ProviderAdapter, call: UpstreamCall, decoded: DecodedMessages, identity: MessageIdentity): Promise<JsonReply> {
  refuse(decoded, call);
  const stream = await openParts(adapter, decoded, call);
  const parts: StreamPart[] = [];
  for (let next = await stream.parts.next(); !next.done; next = await stream.parts.next()) parts.push(next.value);
  const message = encodeMessage(parts, { ...identity, model: call.endpoint.model, signer: call.provider.name });
  const finish = parts.find((p) => p.type === 'finish');
  return { body: JSON.stringify(message), usage: finish?.type === 'finish' && finish.usage ? toOpenAiUsage(finish.usage) : null };
}

/**
 * A Messages event stream from a non-Anthropic upstream. The first item is pulled before this
 * resolves (by serve-routed, inside the attempt), and it holds message_start and the first
 * content block together, so a failure before content can still fall back.
 */
export async function translateMessageStream(adapter: ProviderAdapter, call: UpstreamCall, decoded: DecodedMessages, identity: MessageIdentity): Promise<StreamReply> {
  refuse(decoded, call);
  const stream = await openParts(adapter, decoded, call);
  let usage: Usage | null = null;
  let state = createEncodeState({ ...identity, model: call.endpoint.model, signer: call.provider.name });
  async function* events(): AsyncGenerator<string> {
    try {
      for (let next = await stream.parts.next(); !next.done; next = await stream.parts.next()) {
        const part = next.value;
        if (part.type === 'finish' && part.usage) usage = toOpenAiUsage(part.usage);
        const step = encodeStreamPart(part, state);
        state = step.state;
        if (step.events !== '') yield step.events;
      }
      if (!state.finished) throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'the stream ended before its finish', retryable: true, kind: 'stream' });
    } finally {
      await stream.parts.return?.();
    }
  }
  return { chunks: events(), usage: () => usage };
}
