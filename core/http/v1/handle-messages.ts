import type { IncomingMessage, ServerResponse } from 'node:http';
import { anthropicCodec } from '../../protocols/anthropic-messages/anthropic-codec.ts';
import { decodeMessagesRequest } from '../../protocols/anthropic-messages/decode-request.ts';
import { messageTexts } from '../../protocols/anthropic-messages/message-texts.ts';
import { messagesRequestSchema, type CountTokensRequestBody } from '../../protocols/anthropic-messages/request-schema.ts';
import { measurePrompt, roughTokens } from '../../routing/estimate-tokens.ts';
import type { RouteRequest } from '../../routing/router.ts';
import type { UpstreamCall } from '../../providers/provider-adapter.ts';
import { limitMaxTokens } from '../../providers/limit-max-tokens.ts';
import { fitThinking, keepOwnThinking } from '../../providers/anthropic/fit-thinking.ts';
import { describeLeftOutReasoning } from '../../providers/keep-own-reasoning.ts';
import { readJsonBody } from '../read-json-body.ts';
import { validateBody } from '../validate-body.ts';
import { readSessionBody } from './read-session.ts';
import { hashPrefix, leadingMessages, toolNames } from '../../routing/prefix-affinity.ts';
import { serveRouted } from './serve-routed.ts';
import type { V1Context } from './v1-context.ts';
import { translateMessage, translateMessageStream } from './translate-messages.ts';
import type { V1Request } from './v1-request.ts';

/** What a Messages request needs of an endpoint beyond chat, with the field that needs it. */
export function messagesNeeds(body: CountTokensRequestBody): RouteRequest['needs'] {
  const needs: RouteRequest['needs'] = [];
  if (body.tools && body.tools.length > 0) needs.push({ capability: 'tools', param: 'tools' });
  const hasImage = (blocks: unknown): boolean => Array.isArray(blocks) && blocks.some((b) => b?.type === 'image' || (b?.type === 'tool_result' && hasImage(b.content)));
  if (body.messages.some((m) => hasImage(m.content))) needs.push({ capability: 'images', param: 'messages' });
  return needs;
}

/** The headers of the caller's that an Anthropic upstream must see: the API version and the betas, verbatim. */
export function anthropicHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const version = req.headers['anthropic-version'];
  const beta = req.headers['anthropic-beta'];
  if (typeof version === 'string' && version !== '') headers['anthropic-version'] = version;
  if (typeof beta === 'string' && beta !== '') headers['anthropic-beta'] = beta;
  return headers;
}

/**
 * The caller's own body for an Anthropic upstream, with only the model id replaced, max_tokens
 * within the model's output limit (and a thinking budget below it), and only the thinking this
 * provider can check (fit-thinking.ts): thinking another provider signed is left out and said so,
 * and a tool turn that came from another provider is answered without thinking.
 */
export function forwardedBody(raw: Record<string, unknown>, call: Pick<UpstreamCall, 'endpoint' | 'adjustments'> & { provider?: UpstreamCall['provider'] }): string {
  let body: Record<string, unknown> & { messages: { role?: unknown; content?: unknown }[] } = { ...raw, model: call.endpoint.model, messages: raw.messages as { content?: unknown }[] };
  if (typeof raw.max_tokens === 'number') {
    const maxTokens = limitMaxTokens(raw.max_tokens, call, 'max_tokens');
    if (maxTokens !== raw.max_tokens) {
      body.max_tokens = maxTokens;
      const thinking = raw.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
      if (thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number' && thinking.budget_tokens >= maxTokens) {
        body.thinking = { ...thinking, budget_tokens: maxTokens - 1 };
        call.adjustments?.adjust(`thinking.budget_tokens=${maxTokens - 1} (below max_tokens; asked ${thinking.budget_tokens})`);
      }
    }
  }
  const own = keepOwnThinking(body.messages, call.provider?.name);
  for (const entry of describeLeftOutReasoning(own.leftOut)) call.adjustments?.drop(entry);
  body.messages = own.messages;
  body = fitThinking(body, call);
  return JSON.stringify(body);
}

/** POST /v1/messages: Anthropic's Messages API over every provider (pass-through to Anthropic, translated elsewhere). */
export async function handleMessages(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request): Promise<void> {
  const raw = (await readJsonBody(req)) as Record<string, unknown>;
  readSessionBody(request.session, raw);
  const body = validateBody(messagesRequestSchema, raw);
  const decoded = decodeMessagesRequest(body);
  const headers = anthropicHeaders(req);
  const prompt = measurePrompt(messageTexts(body));
  const identity = { id: `msg_${request.requestId}`, estimatedInputTokens: roughTokens(prompt) };
  const forward = (call: UpstreamCall) => ({ body: forwardedBody(raw, call), headers });
  await serveRouted(req, res, ctx, request, {
    body,
    route: { operation: 'chat', model: body.model, needs: messagesNeeds(body), prompt, maxTokens: body.max_tokens },
    purpose: () => ({
      thinking: body.thinking !== undefined && body.thinking.type !== 'disabled',
      // A server tool by its type (web_search_20250305), a client tool by its name.
      tools: (body.tools ?? []).map((t) => (t.type && t.type !== 'custom' ? t.type : t.name)),
    }),
    affinity: () => hashPrefix([body.system ?? null, toolNames(body.tools), leadingMessages(body.messages)]),
    stream: body.stream === true,
    includeUsage: false,
    codec: anthropicCodec,
    json: (adapter, call) => (adapter.messages ? adapter.messages.create(forward(call), call) : translateMessage(adapter, call, decoded, identity)),
    openStream: (adapter, call) => (adapter.messages ? adapter.messages.stream(forward(call), call) : translateMessageStream(adapter, call, decoded, identity)),
  });
}
