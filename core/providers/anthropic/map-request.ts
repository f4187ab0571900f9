import type { Endpoint } from '../../catalog/load-catalog.ts';
import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatRequest } from '../../protocols/openai/request-schemas.ts';
import { FALLBACK_MAX_TOKENS, samplingRuleFor } from './anthropic-settings.ts';
import type { MessagesRequest } from './anthropic-wire-types.ts';
import { mapMessages } from './map-messages.ts';
import { JSON_RESPONSE_TOOL, mapResponseFormat } from './map-response-format.ts';
import { mapTools } from './map-tools.ts';

export interface MappedRequest {
  /** The Messages body for one choice (`stream` is the adapter's to set). */
  body: MessagesRequest;
  /** Set when the answer arrives as this tool's input and must be turned back into content. */
  jsonToolName: string | null;
}

/**
 * OpenAI chat request -> Anthropic Messages body. Parameters Anthropic cannot honour either fail
 * here with the parameter named, when they ask for output Anthropic cannot produce (log
 * probabilities, audio), or are dropped, when the answer is still a right answer without them:
 * `seed`, `presence_penalty`, `frequency_penalty`, `service_tier`, `store`, `metadata`,
 * `prediction`, `reasoning_effort`, `web_search_options`, `tools[].function.strict`,
 * `image_url.detail`. `n` is not in the body: the adapter sends one request per choice.
 */
export function mapChatRequest(request: ChatRequest, endpoint: Pick<Endpoint, 'model' | 'maxOutput'>): MappedRequest {
  rejectUnsupported(request);
  const { system, messages } = mapMessages(request.messages);
  const jsonTool = mapResponseFormat(request.response_format);
  const body: MessagesRequest = {
    model: endpoint.model,
    // Required by Anthropic; OpenAI's default is "as long as the model allows", hence the model's maximum.
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? (endpoint.maxOutput > 0 ? endpoint.maxOutput : FALLBACK_MAX_TOKENS),
    messages,
  };
  if (system !== undefined) body.system = system;
  Object.assign(body, mapSampling(request, endpoint.model));
  const stops = stopSequences(request.stop);
  if (stops.length > 0) body.stop_sequences = stops;
  Object.assign(body, mapTools(request, jsonTool));
  if (request.user) body.metadata = { user_id: request.user };
  return { body, jsonToolName: jsonTool ? JSON_RESPONSE_TOOL : null };
}

/**
 * OpenAI's temperature runs 0..2, Anthropic's 0..1. Policy: clamp, `min(t, 1)`, as Portkey does:
 * values up to 1 pass unchanged and anything hotter gets Anthropic's hottest. (Scaling t/2 would
 * change every ordinary value, the common 0 excepted, without the client knowing.)
 */
function mapSampling(request: ChatRequest, model: string): Pick<MessagesRequest, 'temperature' | 'top_p'> {
  const rule = samplingRuleFor(model);
  if (rule === 'fixed') return {};
  const sampling: Pick<MessagesRequest, 'temperature' | 'top_p'> = {};
  if (request.temperature != null) sampling.temperature = Math.min(request.temperature, 1);
  if (request.top_p != null && !(rule === 'one-of' && sampling.temperature !== undefined)) sampling.top_p = request.top_p;
  return sampling;
}

/** Anthropic rejects empty and whitespace-only stop sequences with a 400; they could never match text anyway. */
function stopSequences(stop: ChatRequest['stop']): string[] {
  if (stop == null) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((s) => s.trim() !== '');
}

/** Routing drops endpoints without the logprobs capability first; this guards a request that got here anyway. */
function rejectUnsupported(request: ChatRequest): void {
  const refuse = (param: string, what: string) => {
    throw new InvalidRequestError(`Anthropic models cannot ${what}; remove '${param}' or choose a model that supports it.`, param, 'unsupported_parameter');
  };
  if (request.logprobs === true) refuse('logprobs', 'return log probabilities');
  if (request.top_logprobs != null) refuse('top_logprobs', 'return log probabilities');
  const logitBias = request.logit_bias;
  if (typeof logitBias === 'object' && logitBias !== null && Object.keys(logitBias).length > 0) refuse('logit_bias', 'bias token logits');
  const modalities = request.modalities;
  if ((Array.isArray(modalities) && modalities.includes('audio')) || request.audio != null) refuse(request.audio != null ? 'audio' : 'modalities', 'answer with audio');
  if (request.functions != null || request.function_call != null) {
    throw new InvalidRequestError("The legacy 'functions' parameter is not translated for Anthropic; send 'tools' instead.", request.functions != null ? 'functions' : 'function_call', 'unsupported_parameter');
  }
}
