import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import type { FinishReason, StreamPart } from '../neutral/stream-part.ts';
import { decodeOpenAiUsage, type OpenAiUsageIn } from './map-usage.ts';

/** What reading one OpenAI chat stream carries from chunk to chunk. Never mutated. */
export interface ChunkState {
  readonly started: boolean;
  /** OpenAI index of the tool call being streamed, -1 when none. */
  readonly toolIndex: number;
  /** Upstream id of that tool call: some upstreams repeat it on every fragment. */
  readonly toolId: string | undefined;
  readonly finishReason: FinishReason | null;
  readonly usage: NeutralUsage | null;
}

export interface ChunkStep {
  parts: StreamPart[];
  state: ChunkState;
}

interface ChatChunkIn {
  id?: string;
  model?: string;
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: OpenAiUsageIn | null;
}

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length', tool_calls: 'tool-calls', function_call: 'tool-calls', content_filter: 'content-filter' };

export function createChunkState(): ChunkState {
  return { started: false, toolIndex: -1, toolId: undefined, finishReason: null, usage: null };
}

/**
 * One OpenAI chat chunk (choice 0; a neutral answer has one) -> neutral parts. Reasoning text some
 * OpenAI-compatible upstreams add (`reasoning_content`, `reasoning`) becomes reasoning without a
 * signature. The finish is held until the stream ends (`finishChunks`), because the usage chunk
 * comes after the finish_reason.
 */
export function decodeChatChunk(chunk: ChatChunkIn, state: ChunkState): ChunkStep {
  const parts: StreamPart[] = [];
  let next = state;
  if (!state.started) {
    parts.push({ type: 'start', ...(chunk.id ? { id: chunk.id } : {}), ...(chunk.model ? { model: chunk.model } : {}) });
    next = { ...next, started: true };
  }
  if (chunk.usage) next = { ...next, usage: decodeOpenAiUsage(chunk.usage) };
  const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
  if (!choice) return { parts, state: next };
  const delta = choice.delta ?? {};
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') parts.push({ type: 'reasoning-delta', text: reasoning });
  if (typeof delta.content === 'string' && delta.content !== '') parts.push({ type: 'text-delta', text: delta.content });
  for (const call of delta.tool_calls ?? []) {
    const index = call.index ?? next.toolIndex;
    if (index !== next.toolIndex || (call.id !== undefined && call.id !== next.toolId)) {
      parts.push({ type: 'tool-call-start', id: toolUseId(call.id, index), name: call.function?.name ?? '' });
      next = { ...next, toolIndex: index, toolId: call.id };
    }
    const args = call.function?.arguments;
    if (args) parts.push({ type: 'tool-call-delta', argumentsDelta: args });
  }
  if (choice.finish_reason) next = { ...next, finishReason: FINISH[choice.finish_reason] ?? 'other' };
  return { parts, state: next };
}

/** The stream's end: the finish part, with the usage of the last chunk. */
export function finishChunks(state: ChunkState): StreamPart[] {
  return [{ type: 'finish', reason: state.finishReason ?? 'stop', usage: state.usage }];
}

/**
 * Anthropic tool_use ids must match ^[a-zA-Z0-9_-]+$ (the next turn is refused otherwise); some
 * upstreams use dots or colons. Other characters become `_`, the same way every time, so an id
 * maps to one id for the whole conversation.
 */
export function toolUseId(id: string | undefined, index: number): string {
  if (!id) return `toolu_pb_${index}`;
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}
