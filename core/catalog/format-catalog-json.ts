/**
 * JSON with one list entry per line (a model, a provider's model), so that a regenerated
 * catalog or snapshot reads as a diff of the models that changed.
 */
export function formatCatalogJson(value: unknown, listKeys: readonly string[] = ['endpoints', 'models']): string {
  return `${format(value, '', listKeys)}\n`;
}

function format(value: unknown, indent: string, listKeys: readonly string[]): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = indent + '  ';
    return `[\n${value.map((v) => inner + format(v, inner, listKeys)).join(',\n')}\n${indent}]`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const inner = indent + '  ';
  const lines = entries.map(([key, v]) => {
    const rendered = listKeys.includes(key) && Array.isArray(v) ? oneLinePerItem(v, inner) : format(v, inner, listKeys);
    return `${inner}${JSON.stringify(key)}: ${rendered}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

function oneLinePerItem(items: unknown[], indent: string): string {
  if (items.length === 0) return '[]';
  const inner = indent + '  ';
  return `[\n${items.map((item) => inner + JSON.stringify(item)).join(',\n')}\n${indent}]`;
}
