import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { ChatRequest } from '../../protocols/openai/request-schemas.ts';
import type { OpenAiQuirks } from './quirks.ts';

type Body = Record<string, unknown>;

/**
 * The chat body sent upstream: the caller's, with the provider's model id and only the edits the
 * provider's quirks call for. With no quirks this is a shallow copy with `model` replaced.
 */
export function mapChatRequest(request: ChatRequest, model: string, quirks: OpenAiQuirks, provider = 'this provider'): Body {
  refuseUnserved(request, quirks, provider);
  const body: Body = { ...request, model };
  for (const field of quirks.droppedChatFields) delete body[field];
  if (quirks.editsMessages) body.messages = mapMessages(request.messages, quirks);
  if (!quirks.streamUsageOption) delete body.stream_options;
  if (quirks.maxTokensOnly && request.max_completion_tokens != null) {
    body.max_tokens = request.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  if (quirks.stopAsArray && typeof request.stop === 'string') body.stop = [request.stop];
  if (quirks.integerLogprobs) {
    // Together's `logprobs` is the top-k count (§5.2, §7.2): at least 1 to get the sampled token's.
    if (request.logprobs) body.logprobs = Math.max(1, request.top_logprobs ?? 0);
    else delete body.logprobs;
    delete body.top_logprobs;
  }
  return body;
}

/** A streamed request: `stream: true`, and the usage option only where the upstream takes it. */
export function withStreaming(body: Body, quirks: OpenAiQuirks): Body {
  body.stream = true;
  if (quirks.streamUsageOption) {
    body.stream_options = { ...((body.stream_options as object | null | undefined) ?? {}), include_usage: true };
  } else {
    delete body.stream_options;
  }
  return body;
}

/** How many alternatives the client asked for per token (OpenAI's `top_logprobs`, 0 when unset). */
export function requestedTopLogprobs(request: ChatRequest): number {
  return request.logprobs ? (request.top_logprobs ?? 0) : 0;
}

function refuseUnserved(request: ChatRequest, quirks: OpenAiQuirks, provider: string): void {
  if (quirks.maxChoices !== undefined && (request.n ?? 1) > quirks.maxChoices) {
    throw new InvalidRequestError(`${provider} returns at most ${quirks.maxChoices} choice(s) per request; lower 'n' or choose another model.`, 'n', 'unsupported_parameter');
  }
  if (!quirks.chatLogprobs && request.logprobs) {
    throw new InvalidRequestError(`${provider} does not return log probabilities; remove 'logprobs' or choose another model.`, 'logprobs', 'unsupported_parameter');
  }
}

function mapMessages(messages: ChatRequest['messages'], quirks: OpenAiQuirks): unknown[] {
  let changed = false;
  const mapped = messages.map((message) => {
    const role = quirks.renamedRoles[message.role];
    const dropName = quirks.dropMessageName && 'name' in message;
    if (!role && !dropName) return message;
    changed = true;
    const copy: Body = { ...message };
    if (role) copy.role = role;
    if (dropName) delete copy.name;
    return copy;
  });
  return changed ? mapped : messages;
}
