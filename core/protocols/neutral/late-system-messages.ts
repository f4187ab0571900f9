import type { NeutralRequest } from './neutral-request.ts';

/**
 * The system messages that stand after the model has already answered once (after an assistant
 * turn): an instruction given at that point of the conversation. An upstream with no system turn
 * inside a conversation (Gemini's systemInstruction, Anthropic's top-level `system` without the
 * beta) gets them with the system prompt, where they read as if given from the start: that
 * changes what they mean, so the adapter says it (X-Patchbay-Adjusted). System messages before
 * the first answer (Claude Code's environment message after the first user message) mean the same
 * either way and are not listed. Named by their place in the caller's request (`messages[5]`),
 * or by position among the neutral messages when the decoder did not say.
 */
export function lateSystemMessages(request: Pick<NeutralRequest, 'messages'>): string[] {
  const late: string[] = [];
  let answered = false;
  for (const [index, message] of request.messages.entries()) {
    if (message.role === 'assistant') answered = true;
    else if (message.role === 'system' && answered && message.parts.length > 0) late.push(message.source ?? `messages[${index}]`);
  }
  return late;
}
