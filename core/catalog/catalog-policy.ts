import type { Capability } from './catalog-schema.ts';

/**
 * Patchbay's choices on top of the public tables, as data: which of a provider's table entries
 * are models its API serves for chat or embeddings today, the ids Patchbay listed before the
 * table (kept so pins keep working), and the facts the tables do not carry (which Patchbay
 * capabilities a provider's models have, reasoning effort levels), each with where it comes from.
 * scripts/update-catalog.ts and `patchbay models update` both build the catalog with it.
 */
export interface ProviderPolicy {
  /** The provider's id in genai-prices' table and in models.dev's. */
  tableId: string;
  modelsDevId: string;
  /** Table ids of models this provider's own API serves for chat or embeddings. */
  include: RegExp;
  /** Retired, or not for chat (audio, images, moderation, fine-tunes): the table prices history too. */
  exclude: RegExp[];
  /** Table id -> the endpoint id Patchbay has listed since before the table (a dated snapshot id). */
  keepIds?: Record<string, string>;
  /** Further ids a table entry names (its `equals` rules) that agents ask for: listed as models of their own. */
  listNamed?: RegExp;
  /** What Patchbay does with any chat model of this provider, whatever the model (its own fan-out of `n`, legacy completions). */
  chatCapabilities: Capability[];
  nativeCompletions?: boolean;
}

export const PROVIDER_POLICIES: Record<string, ProviderPolicy> = {
  openai: {
    tableId: 'openai',
    modelsDevId: 'openai',
    include: /^(gpt-|o\d|text-embedding-)/,
    exclude: [
      /audio|realtime|transcribe|tts|image|search|computer-use|moderation|:/,
      /^ft:|\.ft-/,
      // Retired by OpenAI or superseded snapshots (platform.openai.com/docs/deprecations).
      /^gpt-3\.5-(turbo(?!-instruct)|0301)/,
      /^gpt-4(-32k|-turbo|-vision-preview|\.5-preview|-0\d|$)/,
      /^gpt-4o-2024-/,
      /^o1-(mini|preview)$/,
      // Open-weight models: OpenAI's API does not serve them (Groq and Together do).
      /^gpt-oss/,
    ],
    listNamed: /^gpt-\d+(\.\d+)?-codex(-max|-mini)?$/,
    chatCapabilities: ['chat', 'completions', 'n', 'streaming'],
  },
  anthropic: {
    tableId: 'anthropic',
    modelsDevId: 'anthropic',
    // Claude 4 and later; the Claude 3 family and older are retired (docs.claude.com/en/docs/about-claude/model-deprecations).
    include: /^claude-(opus|sonnet|haiku|fable)-\d/,
    exclude: [],
    keepIds: { 'claude-sonnet-4-5': 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5': 'claude-haiku-4-5-20251001', 'claude-opus-4-5': 'claude-opus-4-5-20251101' },
    chatCapabilities: ['chat', 'completions', 'n', 'streaming'],
  },
  google: {
    tableId: 'google',
    modelsDevId: 'google',
    // The table's google entry prices Vertex AI too (Claude on Vertex, MaaS): the Gemini API serves gemini-* and embeddings.
    include: /^gemini-/,
    exclude: [/tts|image|live|native-audio|omni/, /^gemini-(1\.|pro|flash-1)/, /-maas$/],
    chatCapabilities: ['chat', 'completions', 'n', 'streaming'],
  },
  groq: {
    tableId: 'groq',
    modelsDevId: 'groq',
    include: /./,
    exclude: [
      /whisper|guard/,
      // Retired by Groq (console.groq.com/docs/deprecations).
      /^(gemma-7b-it|gemma2-9b-it|llama-3\.1-405b-reasoning|llama-3\.1-70b-versatile|llama-3\.2-|llama-3\.3-70b-specdec|llama2-|llama3-|mistral-saba-24b|mixtral-8x7b-32768|deepseek-r1-distill-llama-70b|qwen-qwq-32b)/,
    ],
    chatCapabilities: ['chat', 'completions', 'streaming'],
  },
  together: {
    tableId: 'together',
    modelsDevId: 'togetherai',
    // The table keeps Together's whole history; its serverless lineup today is these families.
    include: /^(meta-llama\/(Llama-3\.3-70B-Instruct-Turbo|Meta-Llama-3\.1-(8B|70B|405B)-Instruct-Turbo|Llama-4-)|deepseek-ai\/DeepSeek-(V3|R1)|openai\/gpt-oss|Qwen\/Qwen3|moonshotai\/|BAAI\/)/,
    exclude: [],
    chatCapabilities: ['chat', 'completions', 'logprobs', 'n', 'streaming'],
    nativeCompletions: true,
  },
};

/**
 * Capabilities and reasoning effort levels of chat model families, from the providers' own
 * documents, for what the tables do not carry. A family rule adds; it never removes what a
 * table says. Levels are the values the provider's API takes (reasoning_effort, output_config.effort,
 * thinking_level).
 */
export interface FamilyRule {
  provider: string;
  models: RegExp;
  capabilities: Capability[];
  reasoningEfforts?: string[];
  /** Where the fact is documented. */
  source: string;
}

const OPENAI_MODELS = 'https://platform.openai.com/docs/models';
const OPENAI_REASONING = 'https://platform.openai.com/docs/guides/reasoning';
const CLAUDE_FEATURES = 'https://docs.claude.com/en/docs/about-claude/models/overview';
const CLAUDE_EFFORT = 'https://docs.claude.com/en/docs/build-with-claude/effort';
const CLAUDE_STRUCTURED = 'https://docs.claude.com/en/docs/build-with-claude/structured-outputs';
const GEMINI_MODELS = 'https://ai.google.dev/gemini-api/docs/models';
const GEMINI_THINKING = 'https://ai.google.dev/gemini-api/docs/thinking';

export const FAMILY_RULES: FamilyRule[] = [
  // Every Claude model since Claude 4 takes tools, images, PDFs and extended thinking.
  { provider: 'anthropic', models: /^claude-/, capabilities: ['tools', 'images', 'pdf', 'reasoning'], source: CLAUDE_FEATURES },
  { provider: 'anthropic', models: /^claude-(opus-4-[15-9]|sonnet-4-[5-9]|haiku-4-5|[a-z]+-[5-9])/, capabilities: ['json_schema'], source: CLAUDE_STRUCTURED },
  { provider: 'anthropic', models: /^claude-opus-4-5/, capabilities: [], reasoningEfforts: ['low', 'medium', 'high'], source: CLAUDE_EFFORT },
  { provider: 'anthropic', models: /^claude-opus-4-6/, capabilities: [], reasoningEfforts: ['low', 'medium', 'high', 'max'], source: CLAUDE_EFFORT },
  // OpenAI's chat models since gpt-4o take tools, images, PDFs (file inputs) and Structured Outputs.
  { provider: 'openai', models: /^(gpt-4o|gpt-4\.1|gpt-[5-9]|o[134])/, capabilities: ['tools', 'images', 'pdf', 'json_schema'], source: OPENAI_MODELS },
  { provider: 'openai', models: /^(gpt-4o|gpt-4\.1)/, capabilities: ['logprobs'], source: OPENAI_MODELS },
  { provider: 'openai', models: /^(gpt-[5-9]|o[134])/, capabilities: ['reasoning'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^o[134]/, capabilities: [], reasoningEfforts: ['low', 'medium', 'high'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^gpt-5(-mini|-nano)?$/, capabilities: [], reasoningEfforts: ['minimal', 'low', 'medium', 'high'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^gpt-5-pro$/, capabilities: [], reasoningEfforts: ['high'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^gpt-5\.1$/, capabilities: [], reasoningEfforts: ['none', 'low', 'medium', 'high'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^gpt-5(\.1)?-codex(-mini)?$/, capabilities: [], reasoningEfforts: ['low', 'medium', 'high'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^gpt-5\.1-codex-max$/, capabilities: [], reasoningEfforts: ['low', 'medium', 'high', 'xhigh'], source: OPENAI_REASONING },
  { provider: 'openai', models: /^gpt-5\.2(-codex)?$/, capabilities: [], reasoningEfforts: ['none', 'low', 'medium', 'high', 'xhigh'], source: OPENAI_REASONING },
  // Gemini since 2.0 takes tools, images, PDFs and a response schema; 2.5 and later think.
  { provider: 'google', models: /^gemini-[2-9]/, capabilities: ['tools', 'images', 'pdf', 'json_schema'], source: GEMINI_MODELS },
  { provider: 'google', models: /^gemini-([3-9]|2\.5)/, capabilities: ['reasoning'], source: GEMINI_THINKING },
  { provider: 'google', models: /^gemini-3-pro/, capabilities: [], reasoningEfforts: ['low', 'high'], source: GEMINI_THINKING },
  { provider: 'google', models: /^gemini-3-flash/, capabilities: [], reasoningEfforts: ['minimal', 'low', 'medium', 'high'], source: GEMINI_THINKING },
  // The open-weight reasoning models Groq and Together serve.
  { provider: 'groq', models: /^openai\/gpt-oss/, capabilities: ['reasoning'], reasoningEfforts: ['low', 'medium', 'high'], source: 'https://console.groq.com/docs/reasoning' },
  { provider: 'together', models: /^openai\/gpt-oss/, capabilities: ['reasoning'], reasoningEfforts: ['low', 'medium', 'high'], source: 'https://docs.together.ai/docs/reasoning-models' },
];

/**
 * Aliases one open model gets across the providers that serve it, beyond those Patchbay had
 * (a missing member is left out; an alias with none is not made).
 */
export const SHARED_ALIASES: Record<string, string[]> = {
  'gpt-oss-20b': ['groq/openai/gpt-oss-20b', 'together/openai/gpt-oss-20b'],
  'llama-4-maverick': ['groq/meta-llama/llama-4-maverick-17b-128e-instruct', 'together/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8'],
  'llama-4-scout': ['groq/meta-llama/llama-4-scout-17b-16e-instruct', 'together/meta-llama/Llama-4-Scout-17B-16E-Instruct'],
  'kimi-k2': ['groq/moonshotai/kimi-k2-instruct', 'together/moonshotai/Kimi-K2-Instruct'],
};

/** Claude families whose newest member gets a short alias (claude-opus -> the newest Opus). */
export const NEWEST_OF_FAMILY = /^claude-(opus|sonnet|haiku|fable)-(\d+)(?:-(\d))?(?:-\d{8})?$/;
