/** Together's log probabilities (§5.2): parallel arrays, one entry per generated token. */
export interface TogetherLogprobs {
  token_ids?: (number | null)[];
  tokens?: (string | null)[];
  token_logprobs?: (number | null)[];
  /** One `{token: logprob}` map per position (recorded); the SDK types it loosely. */
  top_logprobs?: Record<string, number>[] | Record<string, number> | null;
}

export interface OpenAiTopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface OpenAiTokenLogprob extends OpenAiTopLogprob {
  top_logprobs: OpenAiTopLogprob[];
}

/** OpenAI's chat `choices[].logprobs` (§1.3). */
export interface OpenAiChatLogprobs {
  content: OpenAiTokenLogprob[];
  refusal: null;
}

/** OpenAI's value for a token whose log probability is not known (§1.3: "outside the top 20"). */
const UNKNOWN_LOGPROB = -9999;

export function isTogetherLogprobs(value: unknown): value is TogetherLogprobs {
  return typeof value === 'object' && value !== null && Array.isArray((value as TogetherLogprobs).tokens) && !('content' in value);
}

/**
 * Together's chat logprobs to OpenAI's `logprobs.content[]`. `topLogprobs` is how many
 * alternatives the client asked for: Together was asked for at least one, so the lists are
 * trimmed back (to none when the client asked for `logprobs: true` alone).
 */
export function mapTogetherChatLogprobs(logprobs: TogetherLogprobs, topLogprobs: number): OpenAiChatLogprobs {
  const tokens = logprobs.tokens ?? [];
  const positions = Array.isArray(logprobs.top_logprobs) ? logprobs.top_logprobs : [];
  const content = tokens.map((token, i) => ({
    ...topLogprob(token ?? '', logprobs.token_logprobs?.[i]),
    top_logprobs: alternatives(positions[i], topLogprobs),
  }));
  return { content, refusal: null };
}

/**
 * A streamed Together chat chunk carries the sampled token's log probability as one number
 * (SDK `ChatCompletionChunk.Choice.logprobs`). Alternatives are not streamed: when the client
 * asked for some, the sampled token is the only one listed.
 */
export function mapTogetherChunkLogprob(logprob: number, token: string, topLogprobs: number): OpenAiChatLogprobs {
  const entry = topLogprob(token, logprob);
  return { content: [{ ...entry, top_logprobs: topLogprobs > 0 ? [entry] : [] }], refusal: null };
}

function alternatives(position: Record<string, number> | undefined, limit: number): OpenAiTopLogprob[] {
  if (!position || limit === 0) return [];
  return Object.entries(position)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([token, logprob]) => topLogprob(token, logprob));
}

function topLogprob(token: string, logprob: number | null | undefined): OpenAiTopLogprob {
  return { token, logprob: logprob ?? UNKNOWN_LOGPROB, bytes: [...Buffer.from(token, 'utf8')] };
}
