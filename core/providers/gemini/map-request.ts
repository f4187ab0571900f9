import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatRequest } from '../../protocols/openai/request-schemas.ts';
import type { GeminiGenerationConfig, GeminiRequest } from './gemini-wire.ts';
import { mapMessages } from './map-messages.ts';
import { mapTools } from './map-tools.ts';

/**
 * An OpenAI chat request to a generateContent body for `model` (the Gemini model id). Parameters
 * Gemini cannot honour are refused with the parameter's name rather than dropped, when dropping
 * would change the answer the caller relies on (logprobs, logit_bias, audio output, legacy
 * functions). Pure: throws InvalidRequestError, never calls out.
 */
export function mapChatRequest(request: ChatRequest, model: string): GeminiRequest {
  refuseUnsupported(request);
  const generationConfig = mapGenerationConfig(request);
  return {
    ...mapMessages(request.messages, model),
    ...mapTools(request),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
}

function refuseUnsupported(request: ChatRequest): void {
  if (request.logprobs) {
    throw new InvalidRequestError("Gemini models in Patchbay do not return log probabilities; remove 'logprobs' or choose a model with the logprobs capability.", 'logprobs');
  }
  if ((request.top_logprobs ?? 0) > 0) throw new InvalidRequestError("'top_logprobs' needs log probabilities, which Gemini models in Patchbay do not return.", 'top_logprobs');
  const bias = request.logit_bias;
  if (bias != null && (typeof bias !== 'object' || Object.keys(bias).length > 0)) {
    throw new InvalidRequestError("Gemini has no 'logit_bias'; remove it or choose an OpenAI model.", 'logit_bias');
  }
  if (Array.isArray(request.modalities) && request.modalities.includes('audio')) {
    throw new InvalidRequestError('Gemini models in Patchbay answer with text only.', 'modalities');
  }
  if (request.functions != null) throw new InvalidRequestError("'functions' is deprecated and not translated for Gemini; send 'tools' instead.", 'functions');
}

/**
 * Sampling and output settings. maxOutputTokens is left unset when the caller gives no limit:
 * Gemini then allows the model's own maximum, as OpenAI does. Penalties of 0 are the default and
 * are not sent, since some Gemini models refuse the penalty fields altogether.
 */
function mapGenerationConfig(request: ChatRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  const stop = (typeof request.stop === 'string' ? [request.stop] : (request.stop ?? [])).filter((s) => s !== '');
  if (stop.length > 0) config.stopSequences = stop;
  if (request.n != null && request.n > 1) config.candidateCount = request.n;
  if (request.seed != null) config.seed = request.seed;
  if (request.presence_penalty) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty) config.frequencyPenalty = request.frequency_penalty;
  Object.assign(config, mapResponseFormat(request.response_format));
  return config;
}

function mapResponseFormat(format: unknown): GeminiGenerationConfig {
  if (format == null) return {};
  const { type, json_schema: jsonSchema } = format as { type?: unknown; json_schema?: { schema?: unknown } };
  if (type === 'text') return {};
  if (type === 'json_object') return { responseMimeType: 'application/json' };
  if (type === 'json_schema') {
    const schema = jsonSchema?.schema;
    if (schema == null) return { responseMimeType: 'application/json' };
    if (typeof schema !== 'object' || Array.isArray(schema)) throw new InvalidRequestError('json_schema.schema must be a JSON Schema object.', 'response_format.json_schema.schema');
    // responseJsonSchema takes JSON Schema itself (refs, additionalProperties), unlike tool
    // parameters, so the schema goes as it is; only the `$schema` dialect marker is dropped.
    const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
    return { responseMimeType: 'application/json', responseJsonSchema: rest };
  }
  throw new InvalidRequestError(`response_format type "${String(type)}" is not supported; use text, json_object or json_schema.`, 'response_format');
}
