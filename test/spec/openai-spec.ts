import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * OpenAI's published OpenAPI spec (the dated copy beside this file, scripts/extract-openai-spec.js)
 * as JSON Schema validators: `check('CreateChatCompletionResponse', body)` lists where an answer
 * breaks the spec. OpenAPI 3.1 schemas are JSON Schema 2020-12 but for `discriminator` (a hint
 * for code generators; the `oneOf` beside it already decides) and `x-` extensions, both ignored.
 * Formats are not checked: the spec's `format` values are documentation (`int64`, `binary`).
 */

export const SPEC_FILE = new URL('./openai-openapi-2026-08-21.json', import.meta.url);

type Json = Record<string, unknown>;

let ajv: Ajv2020 | null = null;
const validators = new Map<string, ValidateFunction>();

/** The spec as plain JSON Schema 2020-12: discriminators left out, 3.0's `nullable` as a null type. */
function asJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'discriminator' && key !== 'nullable') out[key] = asJsonSchema(value);
  if ((node as Json).nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  const { description, default: fallback, ...rest } = out;
  return { ...(description !== undefined ? { description } : {}), ...(fallback !== undefined ? { default: fallback } : {}), anyOf: [rest, { type: 'null' }] };
}

function load(): Ajv2020 {
  if (ajv) return ajv;
  const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as { components: { schemas: Json } };
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'openai-openapi', components: asJsonSchema(spec.components) }, 'openai-openapi');
  return ajv;
}

export function specValidator(schema: string): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = load().getSchema(`openai-openapi#/components/schemas/${schema}`);
    if (!validate) throw new Error(`the spec has no schema ${schema}`);
    validators.set(schema, validate);
  }
  return validate;
}

/**
 * Where `value` breaks the spec's `schema`: one line per failing keyword (instance path, what it
 * broke). An error at a path that has errors deeper inside it (a oneOf that failed because of a
 * field of its branch) is left out, so a missing field reads as such. Empty when it conforms.
 */
export function specProblems(schema: string, value: unknown): string[] {
  const validate = specValidator(schema);
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const paths = errors.map((e) => e.instancePath);
  const leaves = errors.filter((e) => !paths.some((p) => p !== e.instancePath && p.startsWith(`${e.instancePath}/`)));
  return [...new Set(leaves.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''} (${e.schemaPath})`))].slice(0, 20);
}

/** The dated source of the spec copy in use (for messages and the README). */
export function specSource(): { commit: string; date: string; repository: string } {
  const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as { info: { 'x-source': { commit: string; date: string; repository: string } } };
  return spec.info['x-source'];
}
