import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody } from '../read-json-body.ts';
import { chatRequestSchema, type ChatRequest } from '../../protocols/openai/request-schemas.ts';
import { validateBody } from '../validate-body.ts';
import { isPlainChatRequest } from '../../protocols/openai/plain-chat-request.ts';
import { readSessionBody } from './read-session.ts';
import type { RouteRequest } from '../../routing/router.ts';
import { chatTexts, measurePrompt } from '../../routing/estimate-tokens.ts';
import { choicesFanOut } from './estimate-admission.ts';
import { hashPrefix, leadingMessages, toolNames } from '../../routing/prefix-affinity.ts';
import { serveRouted } from './serve-routed.ts';
import type { V1Context } from './v1-context.ts';
import type { V1Request } from './v1-request.ts';

/** What a chat request needs of an endpoint beyond chat itself, with the parameter that needs it. */
export function chatNeeds(body: ChatRequest): RouteRequest['needs'] {
  const needs: RouteRequest['needs'] = [];
  if (body.tools && body.tools.length > 0) needs.push({ capability: 'tools', param: 'tools' });
  if (body.messages.some((m) => Array.isArray(m.content) && m.content.some((part) => part.type === 'image_url'))) {
    needs.push({ capability: 'images', param: 'messages' });
  }
  if ((body.n ?? 1) > 1) needs.push({ capability: 'n', param: 'n' });
  if (body.logprobs) needs.push({ capability: 'logprobs', param: 'logprobs' });
  return needs;
}

export async function handleChatCompletions(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request): Promise<void> {
  const raw = await readJsonBody(req);
  readSessionBody(request.session, raw);
  // The common body is checked by hand; zod checks (and explains) the rest.
  const body = isPlainChatRequest(raw) ? raw : validateBody(chatRequestSchema, raw);
  await serveRouted(req, res, ctx, request, {
    body,
    route: {
      operation: 'chat',
      model: body.model,
      needs: chatNeeds(body),
      prompt: measurePrompt(chatTexts(body.messages, body.tools)),
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    },
    purpose: () => ({
      thinking: typeof body.reasoning_effort === 'string' && body.reasoning_effort !== 'none',
      tools: [...(body.tools ?? []).map((t) => t.function.name), ...(body.web_search_options != null ? ['web_search'] : [])],
    }),
    affinity: () => hashPrefix([toolNames(body.tools), leadingMessages(body.messages)]),
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    fanOut: choicesFanOut(body.n),
    // OpenAI chat in: an OpenAI-compatible answer goes to the client as it is, so a large one passes through.
    json: (adapter, call) => adapter.chat(body, call, true),
    openStream: (adapter, call, includeUsage) => adapter.streamChat(body, call, includeUsage),
  });
}
