import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatRequest } from '../../protocols/openai/request-schemas.ts';
import type { ToolChoiceParam, ToolParam } from './anthropic-wire-types.ts';
import { JSON_RESPONSE_TOOL } from './map-response-format.ts';

type ChatTool = NonNullable<ChatRequest['tools']>[number];

const COMBINATORS = ['oneOf', 'anyOf', 'allOf'] as const;

/**
 * OpenAI tools, tool_choice and parallel_tool_calls -> Anthropic tools and tool_choice, with the
 * JSON-response tool (if any) added. Without any tool, tool_choice and parallel_tool_calls mean
 * nothing and are left out.
 *
 * With a JSON answer requested: a named client tool stays forced; otherwise the JSON tool is
 * forced when there are no client tools (or tool_choice is `none`), and with client tools the
 * model must call one tool of its choice (`any`): a client tool, or the JSON tool to answer.
 */
export function mapTools(request: ChatRequest, jsonTool: ToolParam | null): { tools?: ToolParam[]; tool_choice?: ToolChoiceParam } {
  const clientTools = (request.tools ?? []).map(mapTool);
  if (jsonTool && clientTools.some((t) => t.name === JSON_RESPONSE_TOOL)) {
    throw new InvalidRequestError(`With response_format on Anthropic, the tool name '${JSON_RESPONSE_TOOL}' is reserved for the JSON answer; rename your tool.`, 'tools');
  }
  const tools = jsonTool ? [...clientTools, jsonTool] : clientTools;
  if (tools.length === 0) return {};

  let choice = mapToolChoice(request.tool_choice);
  if (jsonTool && choice.type !== 'tool') {
    choice = clientTools.length === 0 || choice.type === 'none' ? { type: 'tool', name: JSON_RESPONSE_TOOL } : { type: 'any' };
  }
  const forcedJson = choice.type === 'tool' && choice.name === JSON_RESPONSE_TOOL;
  // `none` takes no options; the JSON answer is one call, never several.
  if (choice.type !== 'none' && (request.parallel_tool_calls === false || forcedJson)) {
    choice = { ...choice, disable_parallel_tool_use: true };
  }
  return { tools, tool_choice: choice };
}

function mapTool(tool: ChatTool, i: number): ToolParam {
  const where = `tools[${i}].function.parameters`;
  const parameters = tool.function.parameters ?? { type: 'object', properties: {} };
  for (const key of COMBINATORS) {
    if (key in parameters) {
      throw new InvalidRequestError(`Anthropic does not accept '${key}' at the top level of tool parameters; move the alternatives into a property.`, where);
    }
  }
  if (parameters.type !== undefined && parameters.type !== 'object') {
    throw new InvalidRequestError('Anthropic needs tool parameters to be an object schema ("type": "object").', where);
  }
  return {
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    // OpenAI tolerates a schema without `type`; Anthropic requires it.
    input_schema: parameters.type === undefined ? { type: 'object', ...parameters } : parameters,
  };
}

function mapToolChoice(choice: ChatRequest['tool_choice']): ToolChoiceParam {
  if (choice == null || choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.function.name };
}
