import type { CompletionRequest } from '../../protocols/openai/request-schemas.ts';
import type { Usage } from '../provider-adapter.ts';
import { mapFinishReason } from './map-chat-choice.ts';
import type { TogetherLogprobs } from './map-chat-logprobs.ts';
import { characterCount, concatCompletionLogprobs, mapTogetherCompletionLogprobs, type OpenAiCompletionLogprobs } from './map-completion-logprobs.ts';
import { normalizeUsage } from './map-stream-chunk.ts';
import type { OpenAiQuirks } from './quirks.ts';

/** Together's /completions answer (§5.3): `object: "text.completion"`, choices without index. */
export interface TogetherCompletion {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: { text?: string; index?: number; finish_reason?: string | null; logprobs?: TogetherLogprobs | null }[];
  /** With echo: the prompt, and its logprobs when those were asked for. */
  prompt?: { text?: string; logprobs?: TogetherLogprobs | null }[] | null;
  usage?: Partial<Usage> | null;
}

export interface OpenAiCompletionChoice {
  text: string;
  index: number;
  logprobs: OpenAiCompletionLogprobs | null;
  finish_reason: string | null;
}

/**
 * One OpenAI `text_completion` from the answers to each prompt, in prompt order: choice index =
 * promptIndex * n + i (as OpenAI numbers a prompt array's choices), usage summed. Only OpenAI's
 * fields are kept (Together's `seed`, `prompt`, `warnings` are dropped).
 */
export function mergeCompletionAnswers(answers: TogetherCompletion[], prompts: string[], request: CompletionRequest, quirks: OpenAiQuirks): { body: object; usage: Usage | null } {
  const n = request.n ?? 1;
  const choices: OpenAiCompletionChoice[] = [];
  let usage: Usage | null = null;
  answers.forEach((answer, promptIndex) => {
    (answer.choices ?? []).forEach((choice, i) => {
      choices.push(mapCompletionChoice(choice, answer, prompts[promptIndex], request, quirks, promptIndex * n + (choice.index ?? i)));
    });
    usage = addUsage(usage, answer.usage);
  });
  const first = answers[0] ?? {};
  const body = { id: first.id ?? '', object: 'text_completion', created: first.created ?? Math.floor(Date.now() / 1000), model: first.model ?? request.model, choices, ...(usage ? { usage } : {}) };
  return { body, usage };
}

function mapCompletionChoice(
  choice: NonNullable<TogetherCompletion['choices']>[number],
  answer: TogetherCompletion,
  prompt: string,
  request: CompletionRequest,
  quirks: OpenAiQuirks,
  index: number,
): OpenAiCompletionChoice {
  const echo = request.echo === true;
  const promptLength = characterCount(prompt);
  let logprobs: OpenAiCompletionLogprobs | null = null;
  if (request.logprobs != null && choice.logprobs) {
    logprobs = mapTogetherCompletionLogprobs(choice.logprobs, promptLength);
    const promptLogprobs = answer.prompt?.[0]?.logprobs;
    if (echo && promptLogprobs) logprobs = concatCompletionLogprobs(mapTogetherCompletionLogprobs(promptLogprobs, 0), logprobs);
  }
  return {
    // OpenAI's echo puts the prompt in front of the text; Together returns it beside (§5.3).
    text: (echo ? prompt : '') + (choice.text ?? ''),
    index,
    logprobs,
    finish_reason: choice.finish_reason ? mapFinishReason(choice.finish_reason, quirks) : null,
  };
}

export function addUsage(total: Usage | null, usage: Partial<Usage> | null | undefined): Usage | null {
  if (!usage) return total;
  const next = normalizeUsage(usage as Partial<Usage> & Record<string, unknown>);
  if (!total) return { prompt_tokens: next.prompt_tokens, completion_tokens: next.completion_tokens, total_tokens: next.total_tokens };
  return {
    prompt_tokens: total.prompt_tokens + next.prompt_tokens,
    completion_tokens: total.completion_tokens + next.completion_tokens,
    total_tokens: total.total_tokens + next.total_tokens,
  };
}
