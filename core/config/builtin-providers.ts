import type { Protocol } from './config-schema.ts';

export interface BuiltinProvider {
  protocol: Protocol;
  baseUrl: string;
  /** Environment variable that overrides the keychain for headless use. */
  apiKeyEnv: string;
  displayName: string;
}

/** The five providers Patchbay knows by prefix. User-defined providers sit beside them in config. */
export const BUILTIN_PROVIDERS: Record<string, BuiltinProvider> = {
  openai: { protocol: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', displayName: 'OpenAI' },
  anthropic: { protocol: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', apiKeyEnv: 'ANTHROPIC_API_KEY', displayName: 'Anthropic' },
  google: {
    protocol: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    apiKeyEnv: 'GEMINI_API_KEY',
    displayName: 'Google Gemini',
  },
  groq: { protocol: 'openai', baseUrl: 'https://api.groq.com/openai/v1', apiKeyEnv: 'GROQ_API_KEY', displayName: 'Groq' },
  together: { protocol: 'openai', baseUrl: 'https://api.together.xyz/v1', apiKeyEnv: 'TOGETHER_API_KEY', displayName: 'Together AI' },
};
