import type { Endpoint } from '../catalog/load-catalog.ts';
import { codexInstructions } from './codex-instructions.ts';

/**
 * A model as Codex's catalog describes it (`ModelInfo` in openai/codex's protocol crate; the
 * `{"models": [...]}` answer of a provider's `model_catalog_url`, read by Codex 0.169 and 0.171).
 * Only the fields Patchbay sets: Codex fills in the rest with its defaults.
 */
export interface CodexModelInfo {
  slug: string;
  display_name: string;
  description: string;
  default_reasoning_level?: CodexEffort;
  supported_reasoning_levels: { effort: CodexEffort; description: string }[];
  shell_type: 'unified_exec';
  visibility: 'list';
  supported_in_api: true;
  priority: number;
  upgrade: null;
  base_instructions: string;
  supports_reasoning_summaries: boolean;
  support_verbosity: false;
  apply_patch_tool_type: 'freeform';
  truncation_policy: { mode: 'tokens'; limit: number };
  supports_parallel_tool_calls: boolean;
  context_window: number;
  experimental_supported_tools: string[];
  input_modalities: ('text' | 'image')[];
}

type CodexEffort = 'low' | 'medium' | 'high' | 'xhigh';

/** A name Codex may be given: a provider's model, or an alias served by any of its endpoints. */
export interface CodexCatalogModel {
  id: string;
  endpoints: Endpoint[];
}

/**
 * The efforts Patchbay carries to each upstream: a thinking budget for Anthropic and Gemini (low to
 * xhigh), reasoning_effort for OpenAI-compatible chat (xhigh becomes high there), as written for
 * OpenAI's own Responses.
 */
const EFFORTS: { effort: CodexEffort; description: string }[] = [
  { effort: 'low', description: 'Quick answers, little reasoning' },
  { effort: 'medium', description: 'Balanced reasoning for everyday tasks' },
  { effort: 'high', description: 'Deeper reasoning for hard problems' },
  { effort: 'xhigh', description: 'The most reasoning the model offers' },
];

/** Codex's own setting for its models: tool output kept to about 10,000 tokens. */
const TRUNCATION = { mode: 'tokens' as const, limit: 10_000 };

/**
 * Patchbay's models as Codex's catalog, so Codex treats each as it treats OpenAI's own: the window
 * (auto-compaction), the reasoning levels, `apply_patch` as the freeform (custom) tool, which
 * Patchbay hands to a provider without custom tools as a function of one string and answers as a
 * custom_tool_call, and images only where every endpoint takes them. Models without tools (Codex
 * cannot work without them) are left out. Pure: the served list is the same on every replica.
 */
export function mapCodexModelCatalog(models: CodexCatalogModel[]): { models: CodexModelInfo[] } {
  const out: CodexModelInfo[] = [];
  for (const { id, endpoints } of models) {
    const every = (capability: Parameters<Endpoint['capabilities']['has']>[0]) => endpoints.length > 0 && endpoints.every((e) => e.capabilities.has(capability));
    if (!every('chat') || !every('tools')) continue;
    const reasoning = every('reasoning');
    out.push({
      slug: id,
      display_name: id,
      description: endpoints.length === 1 ? `${endpoints[0].model} on ${endpoints[0].provider}, through Patchbay` : `Patchbay alias: ${endpoints.map((e) => e.id).join(', ')}`,
      ...(reasoning ? { default_reasoning_level: 'medium' as const } : {}),
      supported_reasoning_levels: reasoning ? EFFORTS : [],
      shell_type: 'unified_exec',
      visibility: 'list',
      supported_in_api: true,
      priority: out.length + 1,
      upgrade: null,
      base_instructions: codexInstructions(id),
      supports_reasoning_summaries: reasoning,
      support_verbosity: false,
      apply_patch_tool_type: 'freeform',
      truncation_policy: TRUNCATION,
      supports_parallel_tool_calls: true,
      context_window: Math.min(...endpoints.map((e) => e.contextWindow)),
      experimental_supported_tools: [],
      input_modalities: every('images') ? ['text', 'image'] : ['text'],
    });
  }
  return { models: out };
}
