import type { MessageResponse } from './anthropic-wire-types.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { mapUsage } from './map-usage.ts';
import type { ChatCompletion, ChatToolCall } from '../../protocols/openai/chat-types.ts';

export interface ResponseContext {
  /** Unix seconds; Anthropic's answer carries no timestamp. */
  created: number;
  /** The JSON-response tool, whose input is the answer's content rather than a tool call. */
  jsonToolName: string | null;
}

/**
 * Anthropic Message -> OpenAI chat.completion with one choice. Text blocks are concatenated into
 * `content`; tool_use blocks become tool_calls in order, their input object serialized as the
 * arguments string; in JSON mode the json_response tool's input is the whole content. Thinking, redacted thinking and any block type OpenAI has no place for are
 * left out. The id is Anthropic's own `msg_...`, so a request can be found in Anthropic's logs.
 */
export function mapMessageResponse(message: MessageResponse, context: ResponseContext): ChatCompletion {
  let content: string | null = null;
  let json: string | null = null;
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') {
      content = (content ?? '') + (block.text ?? '');
    } else if (block.type === 'tool_use') {
      const args = JSON.stringify(block.input ?? {});
      if (block.name === context.jsonToolName) json = (json ?? '') + args;
      else toolCalls.push({ id: block.id ?? '', type: 'function', function: { name: block.name ?? '', arguments: args } });
    }
  }
  // JSON mode: the client asked for JSON, so a sentence Claude wrote before the tool is not part of it.
  if (json !== null) content = json;
  return {
    id: message.id,
    object: 'chat.completion',
    created: context.created,
    model: message.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: mapFinishReason(message.stop_reason, toolCalls.length > 0),
      },
    ],
    usage: mapUsage(message.usage),
  };
}
