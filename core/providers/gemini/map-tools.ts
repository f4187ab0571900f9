import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatRequest } from '../../protocols/openai/request-schemas.ts';
import { GEMINI_SETTINGS } from './gemini-settings.ts';
import type { GeminiFunctionDeclaration, GeminiRequest } from './gemini-wire.ts';
import { mapJsonSchema } from './map-json-schema.ts';

export type MappedTools = Pick<GeminiRequest, 'tools' | 'toolConfig'>;

/**
 * OpenAI function tools to one Gemini tool of function declarations, and tool_choice to
 * functionCallingConfig. `strict` has no Gemini counterpart and is dropped.
 */
export function mapTools(request: Pick<ChatRequest, 'tools' | 'tool_choice'>): MappedTools {
  const tools = request.tools ?? [];
  if (tools.length === 0) return {};
  const declarations = tools.map((tool, i): GeminiFunctionDeclaration => {
    const { name, description, parameters } = tool.function;
    if (!GEMINI_SETTINGS.functionNamePattern.test(name)) {
      throw new InvalidRequestError(`Gemini function names must start with a letter or an underscore; "${name}" does not.`, `tools[${i}].function.name`);
    }
    const mapped = mapJsonSchema(parameters, `tools[${i}].function.parameters`);
    return { name, ...(description ? { description } : {}), ...(mapped ? { parameters: mapped } : {}) };
  });
  return { tools: [{ functionDeclarations: declarations }], ...mapToolChoice(request.tool_choice) };
}

function mapToolChoice(choice: ChatRequest['tool_choice']): MappedTools {
  if (choice == null) return {};
  if (choice === 'auto') return { toolConfig: { functionCallingConfig: { mode: 'AUTO' } } };
  if (choice === 'none') return { toolConfig: { functionCallingConfig: { mode: 'NONE' } } };
  if (choice === 'required') return { toolConfig: { functionCallingConfig: { mode: 'ANY' } } };
  return { toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } } };
}
