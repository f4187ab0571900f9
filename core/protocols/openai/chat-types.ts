/**
 * OpenAI's chat answer shapes, as Patchbay writes them: the one set of response, chunk, usage and
 * finish-reason types every translating adapter produces (not the whole OpenAI spec).
 */

/** OpenAI's usage object: what every adapter reports on the OpenAI path, whatever its upstream calls it. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage extends Usage {
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ChatToolCall[] };
  logprobs: null;
  finish_reason: FinishReason;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatChoice[];
  usage: ChatUsage;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string; tool_calls?: ChatToolCallDelta[] };
  logprobs: null;
  finish_reason: FinishReason | null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatChunkChoice[];
  /** Present only when the client asked for usage: null on every chunk but the last. */
  usage?: ChatUsage | null;
}
