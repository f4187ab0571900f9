import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatMessage } from '../../protocols/openai/request-schemas.ts';
import type { ContentBlockParam, MessageParam, TextBlockParam, ToolResultBlockParam, ToolUseBlockParam } from './anthropic-wire-types.ts';
import { mapContentPart, textBlocks } from './map-content-part.ts';
import { mapToolCallId } from './map-tool-call-id.ts';

export interface MappedMessages {
  system: string | TextBlockParam[] | undefined;
  messages: MessageParam[];
}

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/**
 * OpenAI's message list -> Anthropic's `system` + alternating user/assistant turns.
 *
 * - Every system and developer message, wherever it stands, goes into the top-level `system`, in
 *   order. A mid-conversation system message thus loses its position but keeps its authority:
 *   turning it into user text would put the operator's words in the user's mouth.
 * - Tool messages become `tool_result` blocks of a user turn; consecutive ones share one turn.
 * - Consecutive same-role turns are merged; in a user turn the tool_result blocks go first, as
 *   Anthropic requires after a tool_use turn.
 * - `name` on messages has no Anthropic equivalent and is dropped.
 */
export function mapMessages(messages: ChatMessage[]): MappedMessages {
  const system: TextBlockParam[] = [];
  const turns: { role: 'user' | 'assistant'; blocks: ContentBlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks: [...blocks] });
  };

  messages.forEach((message, i) => {
    const where = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...partsToBlocks(message.content, `${where}.content`).filter((b): b is TextBlockParam => b.type === 'text'));
        break;
      case 'user':
        push('user', partsToBlocks(message.content, `${where}.content`));
        break;
      case 'assistant':
        push('assistant', [...assistantContent(message, where), ...toolUses(message, where)]);
        break;
      case 'tool':
        push('user', [toolResult(message)]);
        break;
    }
  });

  trimFinalAssistantText(turns);
  if (turns.length === 0) {
    throw new InvalidRequestError('Anthropic needs at least one user or assistant message with content besides the system messages.', 'messages');
  }
  return {
    system: system.length === 0 ? undefined : system.length === 1 && !system[0].cache_control ? system[0].text : system,
    messages: turns.map(({ role, blocks }) => ({ role, content: collapse(role === 'user' ? toolResultsFirst(blocks) : blocks) })),
  };
}

function partsToBlocks(content: Extract<ChatMessage, { role: 'user' }>['content'], where: string): ContentBlockParam[] {
  if (typeof content === 'string') return textBlocks(content, undefined);
  return content.flatMap((part, j) => mapContentPart(part, `${where}[${j}]`));
}

function assistantContent(message: AssistantMessage, where: string): ContentBlockParam[] {
  if (message.content == null) return [];
  const blocks = partsToBlocks(message.content, `${where}.content`);
  if (blocks.some((b) => b.type !== 'text')) {
    throw new InvalidRequestError('Anthropic accepts only text in assistant messages.', `${where}.content`, 'unsupported_content');
  }
  return blocks;
}

function toolUses(message: AssistantMessage, where: string): ToolUseBlockParam[] {
  return (message.tool_calls ?? []).map((call, j) => ({
    type: 'tool_use',
    id: mapToolCallId(call.id),
    name: call.function.name,
    input: parseArguments(call.function.arguments, `${where}.tool_calls[${j}].function.arguments`),
  }));
}

/**
 * OpenAI carries arguments as a JSON string, Anthropic as an object. An empty string is a call
 * without arguments. Anything that is not a JSON object cannot be represented, and guessing a
 * wrapper would put words in the model's mouth, so it is refused with the field named.
 */
function parseArguments(text: string, where: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('Tool-call arguments must be valid JSON to be sent to Anthropic, which takes them as an object.', where, 'invalid_tool_arguments');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidRequestError('Tool-call arguments must be a JSON object to be sent to Anthropic.', where, 'invalid_tool_arguments');
  }
  return parsed as Record<string, unknown>;
}

function toolResult(message: ToolMessage): ToolResultBlockParam {
  const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: mapToolCallId(message.tool_call_id) };
  // Anthropic rejects empty text blocks; a result with nothing to say is sent without content.
  if (typeof message.content === 'string') {
    if (message.content !== '') block.content = message.content;
  } else {
    const texts = message.content.flatMap((part) => textBlocks(part.text, part.cache_control));
    if (texts.length > 0) block.content = texts;
  }
  return block;
}

function toolResultsFirst(blocks: ContentBlockParam[]): ContentBlockParam[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

/**
 * A final assistant turn is a prefill that Anthropic continues, and it rejects one ending in
 * whitespace ("final assistant content cannot end with trailing whitespace").
 */
function trimFinalAssistantText(turns: { role: 'user' | 'assistant'; blocks: ContentBlockParam[] }[]): void {
  const last = turns[turns.length - 1];
  if (last?.role !== 'assistant') return;
  const block = last.blocks[last.blocks.length - 1];
  if (block.type !== 'text') return;
  const text = block.text.trimEnd();
  if (text === '') last.blocks.pop();
  else last.blocks[last.blocks.length - 1] = { ...block, text };
  if (last.blocks.length === 0) turns.pop();
}

/** A lone plain text block is sent as a string, the form Anthropic's own examples use. */
function collapse(blocks: ContentBlockParam[]): string | ContentBlockParam[] {
  const only = blocks[0];
  if (blocks.length === 1 && only.type === 'text' && !only.cache_control) return only.text;
  return blocks;
}
