import { randomUUID } from 'node:crypto';
import { ProviderError } from '../errors/provider-error.ts';
import type { NeutralRequest } from '../protocols/neutral/neutral-request.ts';
import { decodeChatRequest, type DecodedChat } from '../protocols/openai/decode-chat-request.ts';
import { createAnswerState, encodeChatChunk, encodeChatCompletion, endChatChunks, isAnswerComplete, type AnswerIdentity } from '../protocols/openai/encode-chat-answer.ts';
import { toOpenAiUsage, type ReportedUsage } from '../protocols/openai/map-usage.ts';
import type { ChatCompletion, ChatCompletionChunk } from '../protocols/openai/chat-types.ts';
import type { ChatRequest } from '../protocols/openai/request-schemas.ts';
import type { JsonReply, NeutralEntry, StreamReply, UpstreamCall } from './provider-adapter.ts';
import { refuseNativeOnly } from './refuse-native-only.ts';
import { limitNeutralMaxTokens } from './limit-max-tokens.ts';

/**
 * Decoded once per client request: a fallback's next attempt reuses it (the chat request object is
 * the same for every attempt).
 */
const decodedChats = new WeakMap<ChatRequest, DecodedChat>();

function decode(chat: ChatRequest, call: UpstreamCall): NeutralRequest {
  let decoded = decodedChats.get(chat);
  if (!decoded) decodedChats.set(chat, (decoded = decodeChatRequest(chat)));
  refuseNativeOnly(decoded.nativeOnly, call.provider.name, call.endpoint, 'a model that supports it');
  return limitNeutralMaxTokens(decoded.request, call);
}

function identity(call: UpstreamCall): AnswerIdentity {
  return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(Date.now() / 1000), model: call.endpoint.model };
}

/** A whole OpenAI answer from the neutral entry, and the usage for the row. */
export async function answerChat(entry: NeutralEntry, chat: ChatRequest, call: UpstreamCall): Promise<{ completion: ChatCompletion; usage: ReportedUsage | null }> {
  const parts = await entry.answer(decode(chat, call), call);
  let usage = null;
  for (const part of parts) if (part.type === 'finish' && part.usage) usage = part.usage;
  return { completion: encodeChatCompletion(parts, identity(call)), usage: usage ? toOpenAiUsage(usage) : null };
}

/** OpenAI chunk objects from the neutral entry's stream, and the usage so far. */
export async function openChatChunks(entry: NeutralEntry, chat: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<{ chunks: AsyncGenerator<ChatCompletionChunk>; usage(): ReportedUsage | null }> {
  const stream = await entry.stream(decode(chat, call), call);
  let state = createAnswerState(identity(call), includeUsage);
  async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
    try {
      for (let next = await stream.parts.next(); !next.done; next = await stream.parts.next()) {
        const step = encodeChatChunk(next.value, state);
        state = step.state;
        yield* step.chunks;
      }
      if (!isAnswerComplete(state)) {
        throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'the stream ended before the answer finished', retryable: true, kind: 'stream' });
      }
      yield* endChatChunks(state);
    } finally {
      await stream.parts.return?.();
    }
  }
  return { chunks: chunks(), usage: () => (state.usage ? toOpenAiUsage(state.usage) : null) };
}

/** OpenAI chat in, an upstream reached through the neutral model, OpenAI chat out: decode, the adapter's one mapping, encode. */
export async function chatViaNeutral(entry: NeutralEntry, chat: ChatRequest, call: UpstreamCall): Promise<JsonReply> {
  const { completion, usage } = await answerChat(entry, chat, call);
  return { body: JSON.stringify(completion), usage };
}

/** The streamed form: each neutral part becomes OpenAI chunks as it arrives. */
export async function streamChatViaNeutral(entry: NeutralEntry, chat: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
  const opened = await openChatChunks(entry, chat, call, includeUsage);
  return { chunks: serializeChunks(opened.chunks), usage: opened.usage };
}

/** Chunk objects as the text the OpenAI codec frames; a consumer that stops early stops the upstream reads too. */
export async function* serializeChunks(chunks: AsyncIterator<ChatCompletionChunk>): AsyncGenerator<string> {
  try {
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield JSON.stringify(next.value);
  } finally {
    await chunks.return?.();
  }
}
