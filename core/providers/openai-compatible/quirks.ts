/**
 * What an OpenAI look-alike does differently, as data (sources: the provider wire reference,
 * provider-wire.md §4 Groq, §5 Together, §7 pitfalls). Built-in providers have an entry; a user-defined endpoint
 * (Ollama, vLLM, LM Studio ...) gets the defaults, which are OpenAI's own behaviour.
 *
 * Policy for parameters an upstream cannot honour: a field whose absence leaves the answer's
 * shape as the client expects (a sampling hint, a default value) is dropped; a field whose
 * absence would silently take something away from the answer (n > 1 choices, log
 * probabilities) is refused with a 400. Routing already keeps such requests away from these
 * endpoints through catalog capabilities; the refusals are a guard.
 */
export interface OpenAiQuirks {
  /** Sends `stream_options.include_usage` on streams. When false the field is removed, even if the client set it. */
  streamUsageOption: boolean;
  /** Chat fields removed before sending. */
  droppedChatFields: readonly string[];
  /** Removes `messages[].name`. */
  dropMessageName: boolean;
  /** Highest `n` the upstream serves; more is refused. */
  maxChoices: number | undefined;
  /** The upstream returns chat log probabilities; when false `logprobs: true` is refused. */
  chatLogprobs: boolean;
  /** Message roles the upstream does not know, rewritten. */
  renamedRoles: Readonly<Record<string, string>>;
  /** The upstream reads `max_tokens` only: `max_completion_tokens` is sent under that name. */
  maxTokensOnly: boolean;
  /** The upstream takes `stop` as an array only. */
  stopAsArray: boolean;
  /**
   * Answer messages are brought to OpenAI's shape: `content: null` where the upstream leaves it
   * out beside tool calls (Groq, recorded in vercel/ai groq-tool-call.json), no `tool_calls` where
   * it sends an empty list (Together, recorded: `"tool_calls": []`), which a client testing
   * `if (message.tool_calls)` would take for a tool call.
   */
  normalizesMessages: boolean;
  /** Finish reasons outside OpenAI's set, mapped into it. */
  finishReasons: Readonly<Record<string, string>>;
  /** The upstream's service tiers, as OpenAI's (answers' `service_tier`; one OpenAI has no word for is left out). */
  serviceTiers: Readonly<Record<string, string>>;
  /**
   * Together's log-probability dialect: an integer top-k `logprobs` in the request, and
   * `{token_ids, tokens, token_logprobs, top_logprobs}` in the answer.
   */
  integerLogprobs: boolean;
  /** /completions takes one string prompt and answers `text.completion` / `completion.chunk` objects. */
  singlePromptCompletions: boolean;
  /** Embedding request fields the upstream does not take. */
  droppedEmbeddingFields: readonly string[];
  /** Embedding inputs must be text (no token-id arrays). */
  textOnlyEmbeddings: boolean;
  /** Derived: messages need editing (otherwise the caller's array is sent as it is). */
  editsMessages: boolean;
  /** Derived: chat JSON answers need rewriting (otherwise they go to the client byte for byte). */
  mapsChatAnswers: boolean;
}

type Derived = 'editsMessages' | 'mapsChatAnswers';
type QuirkSettings = Partial<Omit<OpenAiQuirks, Derived>>;

/**
 * OpenAI's behaviour, and what a user-defined endpoint gets. Streams ask for
 * `stream_options.include_usage`, which current Ollama, vLLM and LM Studio accept; an older
 * server that rejects it answers a 400 naming the field, which reaches the client as is (no
 * retry without it: the user can upgrade the server, and silently losing usage is worse).
 */
const DEFAULTS: Omit<OpenAiQuirks, Derived> = {
  streamUsageOption: true,
  droppedChatFields: [],
  dropMessageName: false,
  maxChoices: undefined,
  chatLogprobs: true,
  renamedRoles: {},
  maxTokensOnly: false,
  stopAsArray: false,
  normalizesMessages: false,
  finishReasons: {},
  serviceTiers: {},
  integerLogprobs: false,
  singlePromptCompletions: false,
  droppedEmbeddingFields: [],
  textOnlyEmbeddings: false,
};

const SETTINGS: Record<string, QuirkSettings> = {
  openai: {},
  groq: {
    // §4.2: `messages[].name`, logprobs, top_logprobs and logit_bias are rejected with a 400;
    // the SDK says no model supports frequency/presence penalties. What happens to each:
    // - name: dropped. A speaker label; the Anthropic and Gemini mappings drop it too (§7.1).
    // - logprobs: `true` is refused (the answer would lack what was asked; routing already keeps
    //   it away: Groq endpoints have no logprobs capability); `false` is dropped.
    // - top_logprobs: dropped; it means nothing without logprobs: true.
    // - logit_bias: dropped. Its keys are token ids of the client's tokenizer, which rarely name
    //   the same tokens on Groq's models, and no catalog capability routes it elsewhere.
    // - frequency_penalty, presence_penalty: dropped. Sampling hints no Groq model applies;
    //   many clients send them as 0 by default, and refusing would break those.
    // Groq accepts stream_options.include_usage since 2025 (§4.2) and also puts usage on the
    // finish chunk (§4.4): asking costs nothing and keeps usage if one of the two goes away.
    // - prompt_cache_key: dropped. Groq caches prompts by itself and lists no cache key (§4.2).
    droppedChatFields: ['logit_bias', 'logprobs', 'top_logprobs', 'frequency_penalty', 'presence_penalty', 'prompt_cache_key'],
    dropMessageName: true,
    // Groq's support for `developer` is not confirmed (§7.1); its open models know only `system`,
    // so the rewrite loses nothing.
    renamedRoles: { developer: 'system' },
    maxChoices: 1,
    chatLogprobs: false,
    normalizesMessages: true,
    // §4.2: Groq's tiers are auto, on_demand, flex and performance. on_demand is its standard
    // pay-as-you-go tier (OpenAI's default), performance its faster paid one (OpenAI's priority).
    serviceTiers: { on_demand: 'default', performance: 'priority' },
  },
  together: {
    // §5.2: usage comes on the finish chunk without stream_options; whether the field is
    // accepted is unsure, so it is never sent.
    streamUsageOption: false,
    // §5.2 lists no prompt cache key among Together's fields.
    droppedChatFields: ['prompt_cache_key'],
    renamedRoles: { developer: 'system' },
    maxTokensOnly: true,
    stopAsArray: true,
    normalizesMessages: true,
    finishReasons: { eos: 'stop' },
    integerLogprobs: true,
    singlePromptCompletions: true,
    // §5.4: the request is {model, input} only.
    droppedEmbeddingFields: ['encoding_format', 'dimensions', 'user'],
    textOnlyEmbeddings: true,
  },
};

function build(settings: QuirkSettings): OpenAiQuirks {
  const quirks = { ...DEFAULTS, ...settings };
  return Object.freeze({
    ...quirks,
    editsMessages: quirks.dropMessageName || Object.keys(quirks.renamedRoles).length > 0,
    mapsChatAnswers: quirks.normalizesMessages || Object.keys(quirks.finishReasons).length > 0 || quirks.integerLogprobs,
  });
}

const BUILT = new Map(Object.entries(SETTINGS).map(([name, settings]) => [name, build(settings)]));
const DEFAULT_QUIRKS = build({});

/** The quirks of a provider, computed once: looking them up costs a map read per request. */
export function quirksFor(provider: string): OpenAiQuirks {
  return BUILT.get(provider) ?? DEFAULT_QUIRKS;
}
