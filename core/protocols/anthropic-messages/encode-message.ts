import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import { sealSignature } from '../neutral/signature-envelope.ts';
import type { StreamPart } from '../neutral/stream-part.ts';
import { encodeStopReason } from './map-stop-reason.ts';
import { encodeAnthropicUsage } from './map-usage.ts';

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Record<string, unknown>[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: Record<string, unknown>;
}

/**
 * A whole answer's neutral parts -> one Message. Tool arguments arrive as JSON text; a tool_use
 * block's `input` is that text parsed (an upstream that sent arguments which are not a JSON
 * object gets them under `{"_raw": ...}` rather than lost). Signatures are sealed with the
 * answering provider's name (`signer`, signature-envelope.ts), as in the stream.
 */
export function encodeMessage(parts: StreamPart[], fallback: { id: string; model: string; signer: string; estimatedInputTokens: number }): AnthropicMessage {
  let id = fallback.id;
  let model = fallback.model;
  let usage: NeutralUsage | null = null;
  let stopReason: string | null = null;
  let stopSequence: string | null = null;
  const content: Record<string, unknown>[] = [];
  let current = null as Record<string, unknown> | null;
  let args = '';
  const finishTool = () => {
    if (current?.type === 'tool_use') current.input = parseArguments(args);
  };
  const push = (block: Record<string, unknown>) => {
    finishTool();
    current = block;
    args = '';
    content.push(block);
  };
  for (const part of parts) {
    switch (part.type) {
      case 'start':
        if (part.id && /^msg_[A-Za-z0-9_-]+$/.test(part.id)) id = part.id;
        model = part.model ?? model;
        usage = part.usage ?? usage;
        break;
      case 'text-delta':
        if (part.text === '') break;
        if (current?.type !== 'text') push({ type: 'text', text: '' });
        current!.text += part.text;
        break;
      case 'reasoning-delta':
        if (current?.type !== 'thinking' || current.signature !== '') push({ type: 'thinking', thinking: '', signature: '' });
        current!.thinking += part.text;
        break;
      case 'reasoning-signature':
        if (current?.type !== 'thinking' || current.signature !== '') push({ type: 'thinking', thinking: '', signature: '' });
        current!.signature = sealSignature(fallback.signer, part.signature);
        break;
      case 'redacted-reasoning':
        push({ type: 'redacted_thinking', data: sealSignature(fallback.signer, part.data, true) });
        break;
      case 'tool-call-start':
        push({ type: 'tool_use', id: part.id, name: part.name, input: {} });
        break;
      case 'tool-call-delta':
        if (current?.type === 'tool_use') args += part.argumentsDelta;
        break;
      case 'finish':
        stopReason = encodeStopReason(part.reason);
        stopSequence = part.stopSequence ?? null;
        usage = part.usage ?? usage;
        break;
    }
  }
  finishTool();
  const counted = usage ?? { inputTokens: fallback.estimatedInputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  return { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason ?? 'end_turn', stop_sequence: stopSequence, usage: encodeAnthropicUsage(counted) };
}

function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { _raw: text };
  } catch {
    return { _raw: text };
  }
}
