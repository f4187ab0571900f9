import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeResponsesRequest, refuseStateful } from '../../protocols/openai-responses/decode-request.ts';
import { declaredTools } from '../../protocols/openai-responses/decode-tools.ts';
import { responsesRequestSchema, type ResponsesRequestBody } from '../../protocols/openai-responses/request-schema.ts';
import { responseBase } from '../../protocols/openai-responses/response-base.ts';
import { responsesCodec } from '../../protocols/openai-responses/responses-codec.ts';
import { responsesTexts } from '../../protocols/openai-responses/request-texts.ts';
import { forwardResponse, forwardResponseStream } from '../../providers/openai-compatible/forward-responses.ts';
import type { UpstreamCall } from '../../providers/provider-adapter.ts';
import { limitMaxTokens } from '../../providers/limit-max-tokens.ts';
import { describeLeftOutReasoning } from '../../providers/keep-own-reasoning.ts';
import { openSignature } from '../../protocols/neutral/signature-envelope.ts';
import { measurePrompt } from '../../routing/estimate-tokens.ts';
import type { RouteRequest } from '../../routing/router.ts';
import { readJsonBody } from '../read-json-body.ts';
import { validateBody } from '../validate-body.ts';
import { readSessionBody } from './read-session.ts';
import { hashPrefix, leadingMessages, toolNames } from '../../routing/prefix-affinity.ts';
import { serveRouted } from './serve-routed.ts';
import type { V1Context } from './v1-context.ts';
import { translateResponse, translateResponseStream } from './translate-responses.ts';
import type { V1Request } from './v1-request.ts';

/** What a Responses request needs of an endpoint beyond chat, with the field that needs it. */
export function responsesNeeds(body: ResponsesRequestBody): RouteRequest['needs'] {
  const needs: RouteRequest['needs'] = [];
  const tools = declaredTools(body);
  if (tools.length > 0) needs.push({ capability: 'tools', param: tools[0].param.replace(/\[\d+\]$/, '') });
  const hasImage = (content: unknown): boolean => Array.isArray(content) && content.some((p) => p?.type === 'input_image');
  if (Array.isArray(body.input) && body.input.some((item) => hasImage(item.content) || hasImage(item.output))) needs.push({ capability: 'images', param: 'input' });
  return needs;
}

/** Only OpenAI itself serves the Responses API; every other provider (Groq, Together, user endpoints) is reached through chat. */
function speaksResponses(call: UpstreamCall): boolean {
  return call.provider.protocol === 'openai' && call.provider.name === 'openai';
}

/**
 * The caller's own body for OpenAI, with only the model id replaced. Reasoning items Patchbay
 * sealed for another provider are left out and said so: OpenAI refuses a whole request for an
 * encrypted_content it did not write; OpenAI's own items go back unchanged.
 */
export function forwardedResponsesBody(raw: Record<string, unknown>, call: Pick<UpstreamCall, 'endpoint' | 'adjustments' | 'provider'>): string {
  const model = call.endpoint.model;
  const input = raw.input;
  const maxOutputTokens = typeof raw.max_output_tokens === 'number' ? limitMaxTokens(raw.max_output_tokens, call, 'max_output_tokens') : raw.max_output_tokens;
  const body = maxOutputTokens === raw.max_output_tokens ? { ...raw, model } : { ...raw, model, max_output_tokens: maxOutputTokens };
  if (!Array.isArray(input)) return JSON.stringify(body);
  const leftOut: string[] = [];
  let changed = false;
  const kept = (input as { type?: unknown; encrypted_content?: unknown }[]).flatMap((item) => {
    const sealed = item?.type === 'reasoning' && typeof item.encrypted_content === 'string' ? openSignature(item.encrypted_content) : null;
    if (!sealed) return [item];
    changed = true;
    if (sealed.provider === call.provider.name && !sealed.redacted) return [{ ...item, encrypted_content: sealed.value }];
    leftOut.push(sealed.provider);
    return [];
  });
  if (!changed) return JSON.stringify(body);
  for (const entry of describeLeftOutReasoning(leftOut)) call.adjustments?.drop(entry);
  return JSON.stringify({ ...body, input: kept });
}

/**
 * POST /v1/responses: OpenAI's Responses API, stateless, over every provider (pass-through to
 * OpenAI, translated through the neutral model elsewhere). Made once with the connect timeout the
 * pass-through transport needs.
 */
export function createResponsesHandler(connectTimeoutMs: number) {
  return async function handleResponses(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request): Promise<void> {
    const raw = (await readJsonBody(req)) as Record<string, unknown>;
    readSessionBody(request.session, raw);
    const body = validateBody(responsesRequestSchema, raw);
    refuseStateful(body);
    const decoded = decodeResponsesRequest(body);
    const id = `resp_${request.requestId.replace(/^req_/, '')}`;
    const createdAt = Math.floor(request.startedWall / 1000);
    const baseFor = (model: string) => responseBase(body, id, model, createdAt);
    await serveRouted(req, res, ctx, request, {
      body,
      route: { operation: 'chat', model: body.model, needs: responsesNeeds(body), prompt: measurePrompt(responsesTexts(body)), maxTokens: body.max_output_tokens ?? undefined },
      purpose: () => ({
        thinking: typeof body.reasoning?.effort === 'string' && body.reasoning.effort !== 'none',
        // A function or custom tool by its name, a built-in one (web_search) by its type.
        tools: (body.tools ?? []).map((t) => { const tool = t as { name?: unknown; type?: unknown }; return String(typeof tool.name === 'string' ? tool.name : tool.type); }),
      }),
      affinity: () => hashPrefix([body.instructions ?? null, toolNames(body.tools), Array.isArray(body.input) ? leadingMessages(body.input.map((item) => ({ role: 'role' in item ? String(item.role) : '', item }))) : body.input]),
      stream: body.stream === true,
      includeUsage: true,
      codec: responsesCodec,
      json: (adapter, call) => (speaksResponses(call) ? forwardResponse(forwardedResponsesBody(raw, call), call, connectTimeoutMs) : translateResponse(adapter, call, decoded, baseFor)),
      openStream: (adapter, call) => (speaksResponses(call) ? forwardResponseStream(forwardedResponsesBody(raw, call), call, connectTimeoutMs) : translateResponseStream(adapter, call, decoded, baseFor)),
    });
  };
}
