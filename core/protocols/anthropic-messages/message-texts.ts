import type { CountTokensRequestBody } from './request-schema.ts';

/** The text of a Messages body (system, every block's text, tool inputs and results, tool definitions), for measuring and estimating. */
export function* messageTexts(body: CountTokensRequestBody): Generator<string> {
  if (typeof body.system === 'string') yield body.system;
  else for (const block of body.system ?? []) yield block.text;
  for (const message of body.messages) {
    if (typeof message.content === 'string') {
      yield message.content;
      continue;
    }
    for (const block of message.content) yield* blockTexts(block as Record<string, unknown>);
  }
  if (body.tools && body.tools.length > 0) yield JSON.stringify(body.tools);
}

function* blockTexts(block: Record<string, unknown>): Generator<string> {
  if (typeof block.text === 'string') yield block.text;
  if (typeof block.thinking === 'string') yield block.thinking;
  if (block.type === 'tool_use') yield JSON.stringify(block.input ?? {});
  if (block.type === 'tool_result') {
    if (typeof block.content === 'string') yield block.content;
    else if (Array.isArray(block.content)) for (const inner of block.content) if (inner && typeof inner === 'object') yield* blockTexts(inner as Record<string, unknown>);
  }
}
