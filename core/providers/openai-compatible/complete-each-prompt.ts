import { ProviderError } from '../../errors/provider-error.ts';
import type { CompletionRequest } from '../../protocols/openai/request-schemas.ts';
import type { JsonReply, StreamReply } from '../provider-adapter.ts';
import { createCompletionStreamState, finishCompletionStream, finishPromptStream, mapCompletionChunk, streamedUsage } from './map-completion-chunk.ts';
import { mergeCompletionAnswers, type TogetherCompletion } from './merge-completion-answers.ts';
import type { OpenAiQuirks } from './quirks.ts';

/** The upstream calls the fan-out needs: one JSON answer's text, or one stream's data payloads. */
export interface PromptTransport {
  provider: string;
  json(body: object): Promise<string>;
  stream(body: object): Promise<AsyncIterator<string>>;
}

/**
 * Legacy completions on an upstream that takes one string prompt (Together, §5.3): one request
 * per prompt, all at once, merged into one OpenAI answer.
 */
export async function completeEachPrompt(bodies: object[], prompts: string[], request: CompletionRequest, quirks: OpenAiQuirks, transport: PromptTransport): Promise<JsonReply> {
  const texts = await Promise.all(bodies.map((body) => transport.json(body)));
  const answers = texts.map((text): TogetherCompletion => {
    try {
      return JSON.parse(text) as TogetherCompletion;
    } catch {
      throw new ProviderError({ provider: transport.provider, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
    }
  });
  const { body, usage } = mergeCompletionAnswers(answers, prompts, request, quirks);
  return { body: JSON.stringify(body), usage };
}

/**
 * The streamed form: each prompt's upstream stream in turn, as one OpenAI stream. The first
 * stream is opened before returning, so a failure to start can still fall back elsewhere.
 */
export async function streamEachPrompt(
  bodies: object[],
  prompts: string[],
  request: CompletionRequest,
  quirks: OpenAiQuirks,
  transport: PromptTransport,
  includeUsage: boolean,
): Promise<StreamReply> {
  const state = createCompletionStreamState(request, quirks, includeUsage, transport.provider);
  const first = await transport.stream(bodies[0]);
  async function* chunks(): AsyncGenerator<string> {
    for (let promptIndex = 0; promptIndex < bodies.length; promptIndex++) {
      const upstream = promptIndex === 0 ? first : await transport.stream(bodies[promptIndex]);
      for (let next = await upstream.next(); !next.done; next = await upstream.next()) {
        yield* mapCompletionChunk(next.value, state, promptIndex, prompts[promptIndex]);
      }
      finishPromptStream(state);
    }
    yield* finishCompletionStream(state);
  }
  return { chunks: chunks(), usage: () => streamedUsage(state) };
}
