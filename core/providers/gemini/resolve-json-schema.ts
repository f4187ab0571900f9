/** A JSON Schema node as callers send it: any JSON object. */
export type JsonSchemaNode = Record<string, unknown>;

export function isSchemaObject(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Resolves a local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root) so it
 * can be inlined: Gemini's Schema has no references. Remote references cannot be fetched.
 */
export function resolveRef(root: JsonSchemaNode, ref: string): JsonSchemaNode | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodePointerToken(raw);
    if (key === undefined) return undefined;
    if (!isSchemaObject(node)) return undefined;
    node = node[key];
  }
  return isSchemaObject(node) ? node : undefined;
}

/** One JSON-pointer segment of a URI fragment; undefined for a malformed percent-escape (`#/%`). */
function decodePointerToken(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
  } catch {
    return undefined;
  }
}

/**
 * Folds `allOf` into one schema: Gemini has no intersection. Object members contribute their
 * properties and required names; other keywords are taken from the first member that has them,
 * with the node's own keywords winning.
 */
export function mergeAllOf(node: JsonSchemaNode, resolve: (member: JsonSchemaNode) => JsonSchemaNode): JsonSchemaNode {
  const { allOf, ...own } = node;
  if (!Array.isArray(allOf)) return node;
  const merged: JsonSchemaNode = {};
  const properties: JsonSchemaNode = {};
  const required = new Set<string>();
  for (const member of [...allOf.filter(isSchemaObject).map(resolve), own]) {
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isSchemaObject(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) value.forEach((name) => typeof name === 'string' && required.add(name));
      else if (!(key in merged) || member === own) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

/**
 * A function's parameters must be one OBJECT schema. A root union of objects (what zod emits for
 * a discriminated union) becomes one object with every branch's properties, required only where
 * all branches require them: looser than the original, but callable.
 */
export function flattenRootUnion(root: JsonSchemaNode, resolve: (member: JsonSchemaNode) => JsonSchemaNode): JsonSchemaNode {
  const branches = root.anyOf ?? root.oneOf;
  if (!Array.isArray(branches) || root.properties !== undefined) return root;
  const objects = branches.filter(isSchemaObject).map(resolve);
  if (objects.length === 0 || !objects.every((b) => isSchemaObject(b.properties))) return root;
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = root;
  const seen = new Map<string, JsonSchemaNode[]>();
  for (const branch of objects) {
    for (const [name, value] of Object.entries(branch.properties as JsonSchemaNode)) {
      if (isSchemaObject(value)) seen.set(name, [...(seen.get(name) ?? []), value]);
    }
  }
  const properties: JsonSchemaNode = {};
  for (const [name, schemas] of seen) properties[name] = joinDiscriminator(schemas) ?? schemas[0];
  const requiredSets = objects.map((b) => new Set(Array.isArray(b.required) ? b.required : []));
  const required = [...requiredSets[0]].filter((name) => requiredSets.every((set) => set.has(name)));
  return { ...rest, type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** The tag of a tagged union (`const` or string `enum` in each branch) allows every branch's value. */
function joinDiscriminator(schemas: JsonSchemaNode[]): JsonSchemaNode | undefined {
  if (schemas.length < 2) return undefined;
  const values = schemas.map((s) => (Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : undefined));
  if (!values.every((v): v is unknown[] => v !== undefined && v.every((item) => typeof item === 'string'))) return undefined;
  return { type: 'string', enum: [...new Set(values.flat())] };
}
