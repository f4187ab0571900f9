/**
 * What an OpenAI look-alike does differently, as data. Built-in providers have an entry; a
 * user-defined endpoint (Ollama, vLLM, LM Studio ...) gets the defaults.
 */
export interface OpenAiQuirks {
  /** Sends `stream_options.include_usage` (some older servers reject the field). */
  streamUsageOption: boolean;
}

const DEFAULT_QUIRKS: OpenAiQuirks = { streamUsageOption: true };

const QUIRKS: Record<string, Partial<OpenAiQuirks>> = {
  openai: {},
  groq: {},
  together: {},
};

export function quirksFor(provider: string): OpenAiQuirks {
  return { ...DEFAULT_QUIRKS, ...QUIRKS[provider] };
}
