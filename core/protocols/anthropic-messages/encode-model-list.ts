/** The part of an OpenAI-shaped model entry an Anthropic ModelInfo is made from. */
interface ListedModel {
  id: string;
  created: number;
  context_window: number;
  max_output_tokens: number;
}

/**
 * Patchbay's model list in Anthropic's shape (`GET /v1/models` with `anthropic-version`, as the
 * SDK's models.list and Claude Code's gateway discovery send): one page holding every model, or
 * one ModelInfo for `GET /v1/models/{id}`. Ids are Patchbay's own, so any of them can be sent
 * back as `model`.
 */
export function encodeModelList(models: ListedModel[], single: boolean, created: number): unknown {
  const data = models.map((m) => ({
    type: 'model',
    id: m.id,
    display_name: m.id,
    created_at: new Date((m.created || created) * 1000).toISOString(),
    max_input_tokens: m.context_window > 0 ? m.context_window : null,
    max_tokens: m.max_output_tokens > 0 ? m.max_output_tokens : null,
  }));
  if (single) return data[0];
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}
