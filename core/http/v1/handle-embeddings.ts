import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteRequest } from '../../routing/router.ts';
import { readJsonBody } from '../read-json-body.ts';
import { embeddingRequestSchema } from '../../protocols/openai/request-schemas.ts';
import { validateBody } from '../validate-body.ts';
import { readSessionBody } from './read-session.ts';
import { measureTextsOrIds } from '../../routing/estimate-tokens.ts';
import { EMBEDDINGS_FAN_OUT } from './estimate-admission.ts';
import { serveRouted } from './serve-routed.ts';
import type { V1Context } from './v1-context.ts';
import type { V1Request } from './v1-request.ts';

export async function handleEmbeddings(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request): Promise<void> {
  const raw = await readJsonBody(req);
  readSessionBody(request.session, raw);
  const body = validateBody(embeddingRequestSchema, raw);
  const needs: RouteRequest['needs'] = [];
  if (body.dimensions !== undefined) needs.push({ capability: 'dimensions', param: 'dimensions' });
  await serveRouted(req, res, ctx, request, {
    body,
    route: {
      operation: 'embeddings',
      model: body.model,
      needs,
      prompt: measureTextsOrIds(body.input),
      maxTokens: undefined,
    },
    stream: false,
    includeUsage: false,
    fanOut: EMBEDDINGS_FAN_OUT,
    json: (adapter, call) => adapter.embed(body, call),
  });
}
