import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageTexts } from '../../protocols/anthropic-messages/message-texts.ts';
import { countTokensRequestSchema } from '../../protocols/anthropic-messages/request-schema.ts';
import { RequestCancel } from '../../providers/cancel-signal.ts';
import { parseStrategyHeader } from '../../routing/resolve-model.ts';
import { measurePrompt, roughTokens } from '../../routing/estimate-tokens.ts';
import { countTokens } from '../../tokens/count-tokens.ts';
import { headerValue } from '../header-value.ts';
import { readJsonBody } from '../read-json-body.ts';
import { validateBody } from '../validate-body.ts';
import { anthropicHeaders, forwardedBody, messagesNeeds } from './handle-messages.ts';
import type { V1Context } from './v1-context.ts';
import { elapsedMs, type V1Request } from './v1-request.ts';

/**
 * POST /v1/messages/count_tokens. Routed like a Messages request; when the model's first choice
 * is an Anthropic endpoint, Anthropic's own count (exact) is returned as Anthropic wrote it.
 * Otherwise Patchbay counts the text with its tokenizer (o200k): an estimate, marked by
 * `x-patchbay-token-count: estimate`, since no other upstream offers a count for Messages.
 */
export async function handleCountTokens(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request): Promise<void> {
  const raw = (await readJsonBody(req)) as Record<string, unknown>;
  const body = validateBody(countTokensRequestSchema, raw);
  request.requestedModel = body.model;
  const texts = [...messageTexts(body)];
  const prompt = measurePrompt(texts);
  const planned = ctx.router.plan({
    operation: 'chat',
    model: body.model,
    needs: messagesNeeds(body),
    prompt,
    maxTokens: undefined,
    stream: false,
    allowedModels: request.key?.allowedModels ?? null,
    strategy: parseStrategyHeader(req.headers['x-patchbay-strategy'] as string | undefined),
    fallbackModels: [],
  });
  const plan = planned instanceof Promise ? await planned : planned;
  const anthropic = plan.candidates.filter((e) => ctx.protocolOf(e.provider) === 'anthropic');
  const headers: Record<string, string> = { ...request.headers, 'content-type': 'application/json', 'x-patchbay-strategy': plan.strategy, 'x-patchbay-route-reason': headerValue(plan.reason) };
  let answer: string;
  if (anthropic.length > 0 && anthropic[0] === plan.candidates[0]) {
    const forwarded = anthropicHeaders(req);
    // The body as a Messages call would send it; a count records no adjustments (its answer has no such headers).
    const reply = await ctx.router.execute({ ...plan, candidates: anthropic }, request.trace, new RequestCancel(), false, (adapter, call) => adapter.messages!.countTokens({ body: forwardedBody(raw, { endpoint: call.endpoint, provider: call.provider }), headers: forwarded }, call));
    answer = reply.body;
    headers['x-patchbay-provider'] = request.trace.endpoint!.provider;
    headers['x-patchbay-token-count'] = 'exact';
  } else {
    const counted = await countTokens(texts.join('\n'));
    answer = JSON.stringify({ input_tokens: counted?.tokens ?? roughTokens(prompt) });
    headers['x-patchbay-provider'] = 'patchbay';
    headers['x-patchbay-token-count'] = 'estimate';
  }
  headers['x-patchbay-latency-ms'] = String(elapsedMs(request));
  headers['content-length'] = String(Buffer.byteLength(answer));
  res.writeHead(200, headers);
  res.end(answer);
}
