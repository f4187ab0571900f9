import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteRequest } from '../../routing/router.ts';
import { readJsonBody } from '../read-json-body.ts';
import { completionRequestSchema } from '../../protocols/openai/request-schemas.ts';
import { validateBody } from '../validate-body.ts';
import { readSessionBody } from './read-session.ts';
import { measureTextsOrIds } from '../../routing/estimate-tokens.ts';
import { completionsFanOut } from './estimate-admission.ts';
import { serveRouted } from './serve-routed.ts';
import type { V1Context } from './v1-context.ts';
import type { V1Request } from './v1-request.ts';

export async function handleCompletions(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request): Promise<void> {
  const raw = await readJsonBody(req);
  readSessionBody(request.session, raw);
  const body = validateBody(completionRequestSchema, raw);
  const needs: RouteRequest['needs'] = [];
  if (body.logprobs != null) needs.push({ capability: 'logprobs', param: 'logprobs' });
  if ((body.best_of ?? 1) > 1) needs.push({ capability: 'logprobs', param: 'best_of' });
  if ((body.n ?? 1) > 1) needs.push({ capability: 'n', param: 'n' });
  await serveRouted(req, res, ctx, request, {
    body,
    route: {
      operation: 'completions',
      model: body.model,
      needs,
      prompt: measureTextsOrIds(body.prompt),
      maxTokens: body.max_tokens ?? 16,
    },
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    fanOut: completionsFanOut(body),
    json: (adapter, call) => adapter.complete(body, call),
    openStream: (adapter, call, includeUsage) => adapter.streamComplete(body, call, includeUsage),
  });
}
