import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ToolParam } from './anthropic-wire-types.ts';

/** The name of the tool that carries a JSON answer; its input is returned as the message content. */
export const JSON_RESPONSE_TOOL = 'json_response';

/**
 * `response_format` -> a tool whose input is the answer. The Messages API (2023-06-01) has no
 * JSON mode; a forced tool call is the way that works on every Claude model, and its input is a
 * JSON object that validates against the given schema. (The newer `output_config.format` needs
 * a recent model and says nothing for `json_object`.) The response and stream mappers turn this
 * tool's input back into plain `content` with finish_reason `stop`, so the client sees what
 * OpenAI's JSON mode gives. Returns null for `text` or no response_format.
 */
export function mapResponseFormat(responseFormat: unknown): ToolParam | null {
  if (responseFormat == null) return null;
  const format = responseFormat as { type?: unknown; json_schema?: { description?: unknown; schema?: unknown } };
  switch (format.type) {
    case 'text':
      return null;
    case 'json_object':
      return { name: JSON_RESPONSE_TOOL, description: 'Give your whole answer as the input of this tool: one JSON object.', input_schema: { type: 'object' } };
    case 'json_schema': {
      const schema = format.json_schema?.schema ?? { type: 'object', properties: {} };
      if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object') {
        throw new InvalidRequestError('Anthropic can only produce a JSON object: the schema must have "type": "object" at its root.', 'response_format.json_schema.schema');
      }
      const description = typeof format.json_schema?.description === 'string' ? format.json_schema.description : 'Give your whole answer as the input of this tool.';
      return { name: JSON_RESPONSE_TOOL, description, input_schema: schema as Record<string, unknown> };
    }
    default:
      throw new InvalidRequestError("response_format.type must be 'text', 'json_object' or 'json_schema'.", 'response_format.type');
  }
}
