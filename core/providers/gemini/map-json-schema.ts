import { InvalidRequestError } from '../../errors/patchbay-error.ts';
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

/** `$ref` chains are followed at most this deep; real schemas nest definitions a few levels. */
export const MAX_REF_DEPTH = 16;
/**
 * Bytes of definitions inlined into one tool's schema at most. Inlining copies a definition at each
 * use, so definitions that use the next one twice double at every level: 20 such levels in 2 KB
 * became a 60 MB body and a 3.5 s stall.
 */
export const MAX_INLINED_BYTES = 1024 * 1024;

interface Inlining {
  root: JsonSchemaNode;
  /** Where the schema sits in the request (`tools[0].function.parameters`), for the 400s. */
  param: string;
  inlinedBytes: number;
  sizes: Map<string, number>;
}

/**
 * Translates an OpenAI tool's JSON Schema into the OpenAPI subset Gemini accepts as
 * `parameters`. Gemini answers 400 to `$schema`, `additionalProperties`, `$ref`/`$defs`, type
 * arrays, non-string enums and most `format`s, so those are removed, inlined or rewritten; hints
 * that would otherwise be lost (format, default, non-string allowed values) go into the
 * description. Returns undefined for a tool without arguments: Gemini rejects an OBJECT with no
 * properties at the root. Never mutates its input. A `$ref` that cannot be inlined (remote,
 * malformed, pointing nowhere, too deep, expanding past MAX_INLINED_BYTES) is a 400 naming it.
 */
export function mapJsonSchema(schema: unknown, param = 'parameters'): GeminiSchema | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const inlining: Inlining = { root: schema, param, inlinedBytes: 0, sizes: new Map() };
  const resolve = (node: JsonSchemaNode): JsonSchemaNode => (typeof node.$ref === 'string' ? inline(inlining, node.$ref, `${param}.$ref`) : node);
  const root = convert(flattenRootUnion(schema, resolve), inlining, [], param);
  if (!root.properties || Object.keys(root.properties).length === 0) return undefined;
  return root;
}

/** The definition a `$ref` names, counted against the inlining budget. */
function inline(inlining: Inlining, ref: string, path: string): JsonSchemaNode {
  if (!ref.startsWith('#')) {
    throw new InvalidRequestError(`Invalid '${path}': Gemini cannot fetch the remote reference ${JSON.stringify(ref.slice(0, 200))}; put the definition under $defs and refer to it as "#/$defs/Name".`, path, 'invalid_schema_ref');
  }
  const target = resolveRef(inlining.root, ref);
  if (!target) {
    throw new InvalidRequestError(`Invalid '${path}': ${JSON.stringify(ref.slice(0, 200))} does not point to a schema in this tool's parameters (write it as a JSON pointer such as "#/$defs/Name").`, path, 'invalid_schema_ref');
  }
  let size = inlining.sizes.get(ref);
  if (size === undefined) inlining.sizes.set(ref, (size = JSON.stringify(target).length));
  inlining.inlinedBytes += size;
  if (inlining.inlinedBytes > MAX_INLINED_BYTES) {
    throw new InvalidRequestError(
      `Invalid '${inlining.param}': inlining its $ref definitions (Gemini has no references) would produce more than ${MAX_INLINED_BYTES / 1024 / 1024} MB; use each definition fewer times or flatten the schema.`,
      inlining.param,
      'schema_too_large',
    );
  }
  return target;
}

function convert(input: JsonSchemaNode, inlining: Inlining, refs: string[], path: string): GeminiSchema {
  let node = input;
  if (typeof node.$ref === 'string') {
    const { $ref, ...siblings } = node;
    // A recursive reference cannot be inlined: leave a free-form object.
    if (refs.includes($ref)) return withNote({ type: 'OBJECT' }, typeof siblings.description === 'string' ? siblings.description : undefined);
    if (refs.length >= MAX_REF_DEPTH) {
      throw new InvalidRequestError(`Invalid '${inlining.param}': its $ref definitions refer to each other more than ${MAX_REF_DEPTH} levels deep; flatten the schema.`, inlining.param, 'schema_too_deep');
    }
    const target = inline(inlining, $ref, `${path}.$ref`);
    return convert({ ...target, ...siblings }, inlining, [...refs, $ref], path);
  }
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, (member) => (typeof member.$ref === 'string' ? inline(inlining, member.$ref, `${path}.allOf`) : member));

  const out: GeminiSchema = {};
  const notes: string[] = [];
  if (typeof node.description === 'string' && node.description) out.description = node.description;

  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (union) {
    const members = union.filter(isSchemaObject);
    const nonNull = members.filter((m) => m.type !== 'null');
    const { anyOf: _a, oneOf: _o, ...rest } = node;
    if (nonNull.length < members.length) out.nullable = true;
    if (nonNull.length === 1) return { ...convert({ ...rest, ...nonNull[0], description: node.description ?? nonNull[0].description }, inlining, refs, path), ...pick(out, 'nullable') };
    out.anyOf = nonNull.map((m) => convert(m, inlining, refs, `${path}.${Array.isArray(node.anyOf) ? 'anyOf' : 'oneOf'}[${union.indexOf(m)}]`));
    return out;
  }

  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((t): t is string => typeof t === 'string');
  if (types.includes('null')) out.nullable = true;
  const concrete = types.filter((t) => t !== 'null');
  if (concrete.length > 1) {
    out.anyOf = concrete.map((t) => convert({ ...node, type: t, description: undefined }, inlining, refs, path));
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
    for (const [name, value] of Object.entries(node.properties)) properties[name] = convert(isSchemaObject(value) ? value : {}, inlining, refs, `${path}.properties.${name}`);
    out.properties = properties;
    const required = Array.isArray(node.required) ? node.required.filter((n): n is string => typeof n === 'string' && n in properties) : [];
    if (required.length > 0) out.required = required;
    if (Array.isArray(node.propertyOrdering)) out.propertyOrdering = node.propertyOrdering.filter((n): n is string => typeof n === 'string' && n in properties);
  }
  if (type === 'ARRAY') {
    const items = Array.isArray(node.prefixItems) ? node.prefixItems[0] : Array.isArray(node.items) ? node.items[0] : node.items;
    // Gemini requires `items` on an ARRAY; an untyped list is offered as a list of strings.
    out.items = isSchemaObject(items) && Object.keys(items).length > 0 ? convert(items, inlining, refs, `${path}.items`) : { type: 'STRING' };
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
