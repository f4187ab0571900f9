import { GEMINI_SETTINGS } from './gemini-settings.ts';
import type { GeminiSchema } from './gemini-wire.ts';
import { flattenRootUnion, isSchemaObject, mergeAllOf, resolveRef, type JsonSchemaNode } from './resolve-json-schema.ts';

type GeminiType = NonNullable<GeminiSchema['type']>;

const TYPES: Record<string, GeminiType> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

/** Keywords Gemini's Schema takes as they are (its int64 limits travel as JSON strings). */
const COUNTS = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'] as const;

/**
 * Translates an OpenAI tool's JSON Schema into the OpenAPI subset Gemini accepts as
 * `parameters`. Gemini answers 400 to `$schema`, `additionalProperties`, `$ref`/`$defs`, type
 * arrays, non-string enums and most `format`s, so those are removed, inlined or rewritten; hints
 * that would otherwise be lost (format, default, non-string allowed values) go into the
 * description. Returns undefined for a tool without arguments: Gemini rejects an OBJECT with no
 * properties at the root. Never mutates its input.
 */
export function mapJsonSchema(schema: unknown): GeminiSchema | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const resolve = (node: JsonSchemaNode): JsonSchemaNode => (typeof node.$ref === 'string' ? (resolveRef(schema, node.$ref) ?? {}) : node);
  const root = convert(flattenRootUnion(schema, resolve), schema, []);
  if (!root.properties || Object.keys(root.properties).length === 0) return undefined;
  return root;
}

function convert(input: JsonSchemaNode, root: JsonSchemaNode, refs: string[]): GeminiSchema {
  let node = input;
  if (typeof node.$ref === 'string') {
    const { $ref, ...siblings } = node;
    const target = resolveRef(root, $ref);
    // A recursive or unresolvable reference cannot be inlined: leave a free-form object.
    if (!target || refs.includes($ref)) return withNote({ type: 'OBJECT' }, typeof siblings.description === 'string' ? siblings.description : undefined);
    return convert({ ...target, ...siblings }, root, [...refs, $ref]);
  }
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, (member) => (typeof member.$ref === 'string' ? (resolveRef(root, member.$ref) ?? {}) : member));

  const out: GeminiSchema = {};
  const notes: string[] = [];
  if (typeof node.description === 'string' && node.description) out.description = node.description;

  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (union) {
    const members = union.filter(isSchemaObject);
    const nonNull = members.filter((m) => m.type !== 'null');
    const { anyOf: _a, oneOf: _o, ...rest } = node;
    if (nonNull.length < members.length) out.nullable = true;
    if (nonNull.length === 1) return { ...convert({ ...rest, ...nonNull[0], description: node.description ?? nonNull[0].description }, root, refs), ...pick(out, 'nullable') };
    out.anyOf = nonNull.map((m) => convert(m, root, refs));
    return out;
  }

  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((t): t is string => typeof t === 'string');
  if (types.includes('null')) out.nullable = true;
  const concrete = types.filter((t) => t !== 'null');
  if (concrete.length > 1) {
    out.anyOf = concrete.map((t) => convert({ ...node, type: t, description: undefined }, root, refs));
    return out;
  }
  const type = concrete.length === 1 ? TYPES[concrete[0]] : inferType(node);
  if (type) out.type = type;

  mapEnum(node, out, notes);
  if (typeof node.format === 'string') {
    if (type && GEMINI_SETTINGS.schemaFormats[type]?.includes(node.format)) out.format = node.format;
    else notes.push(`format: ${node.format}`);
  }
  if (node.default !== undefined) notes.push(`default: ${JSON.stringify(node.default)}`);

  if (type === 'OBJECT' && isSchemaObject(node.properties)) {
    const properties: Record<string, GeminiSchema> = {};
    for (const [name, value] of Object.entries(node.properties)) properties[name] = convert(isSchemaObject(value) ? value : {}, root, refs);
    out.properties = properties;
    const required = Array.isArray(node.required) ? node.required.filter((n): n is string => typeof n === 'string' && n in properties) : [];
    if (required.length > 0) out.required = required;
    if (Array.isArray(node.propertyOrdering)) out.propertyOrdering = node.propertyOrdering.filter((n): n is string => typeof n === 'string' && n in properties);
  }
  if (type === 'ARRAY') {
    const items = Array.isArray(node.prefixItems) ? node.prefixItems[0] : Array.isArray(node.items) ? node.items[0] : node.items;
    // Gemini requires `items` on an ARRAY; an untyped list is offered as a list of strings.
    out.items = isSchemaObject(items) && Object.keys(items).length > 0 ? convert(items, root, refs) : { type: 'STRING' };
  }
  for (const key of COUNTS) if (typeof node[key] === 'number') out[key] = String(node[key]);
  if (typeof node.minimum === 'number') out.minimum = node.minimum;
  if (typeof node.maximum === 'number') out.maximum = node.maximum;
  if (typeof node.pattern === 'string' && type === 'STRING') out.pattern = node.pattern;
  return withNote(out, out.description, notes);
}

function inferType(node: JsonSchemaNode): GeminiType | undefined {
  if (isSchemaObject(node.properties)) return 'OBJECT';
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return 'ARRAY';
  if (Array.isArray(node.enum) || node.const !== undefined) {
    const values = Array.isArray(node.enum) ? node.enum : [node.const];
    return values.every((v) => typeof v === 'string' || v === null) ? 'STRING' : undefined;
  }
  return undefined;
}

/** Gemini's enum is string-only: other values become a description note. */
function mapEnum(node: JsonSchemaNode, out: GeminiSchema, notes: string[]): void {
  const values = Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : undefined;
  if (!values) return;
  if (values.includes(null)) out.nullable = true;
  const nonNull = values.filter((v) => v !== null);
  if (out.type === 'STRING' && nonNull.every((v): v is string => typeof v === 'string')) out.enum = nonNull;
  else notes.push(`allowed values: ${nonNull.map((v) => JSON.stringify(v)).join(', ')}`);
}

function withNote(out: GeminiSchema, description: string | undefined, notes: string[] = []): GeminiSchema {
  const text = [description, notes.length > 0 ? `(${notes.join('; ')})` : undefined].filter(Boolean).join(' ');
  if (text) out.description = text;
  else delete out.description;
  return out;
}

function pick(schema: GeminiSchema, key: 'nullable'): GeminiSchema {
  return schema[key] ? { [key]: schema[key] } : {};
}
