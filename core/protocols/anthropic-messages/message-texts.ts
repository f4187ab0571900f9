import { offeredTools } from './decode-request.ts';
import type { CountTokensRequestBody } from './request-schema.ts';

/** The text of a Messages body (system, every block's text, tool inputs and results, the tool definitions offered), for measuring and estimating. */
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
  // Deferred tools not loaded yet are not in the model's context (nor counted by Anthropic).
  if (body.tools && body.tools.length > 0) {
    const offered = body.tools.some((t) => t.defer_loading === true) ? offeredTools(body) : null;
    yield JSON.stringify(offered ? body.tools.filter((t) => offered.has(t.name)) : body.tools);
  }
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
