import type { ResponsesRequestBody } from './request-schema.ts';

/** The text of a Responses body (instructions, every item's text, call arguments and outputs, tool definitions), for measuring and estimating. */
export function* responsesTexts(body: ResponsesRequestBody): Generator<string> {
  if (body.instructions) yield body.instructions;
  if (typeof body.input === 'string') yield body.input;
  else for (const item of body.input) yield* itemTexts(item as Record<string, unknown>);
  if (body.tools && body.tools.length > 0) yield JSON.stringify(body.tools);
}

function* itemTexts(item: Record<string, unknown>): Generator<string> {
  // The tool definitions an additional_tools item adds count like those of `tools`.
  if (item.type === 'additional_tools' && Array.isArray(item.tools)) yield JSON.stringify(item.tools);
  if (typeof item.content === 'string') yield item.content;
  else if (Array.isArray(item.content)) for (const part of item.content) if (part && typeof part.text === 'string') yield part.text;
  if (typeof item.arguments === 'string') yield item.arguments;
  if (typeof item.output === 'string') yield item.output;
  else if (Array.isArray(item.output)) for (const part of item.output) if (part && typeof part.text === 'string') yield part.text;
}
