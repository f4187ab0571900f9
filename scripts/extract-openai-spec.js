#!/usr/bin/env node
// Writes the part of OpenAI's published OpenAPI spec (github.com/openai/openai-openapi, openapi.json)
// that Patchbay's answers are checked against (test/spec/openai-spec.test.ts): the schemas named in
// ROOTS and every schema they reference, with where they came from. Run it on a newer copy of the
// spec to move the tests to it:
//
//   node scripts/extract-openai-spec.js OPENAPI_JSON COMMIT DATE > test/spec/openai-openapi-DATE.json
import { readFileSync } from 'node:fs';

/** What Patchbay answers (and the request bodies the emulators accept). */
export const ROOTS = [
  'CreateChatCompletionResponse',
  'CreateChatCompletionStreamResponse',
  'CreateCompletionResponse',
  'CreateEmbeddingResponse',
  'ListModelsResponse',
  'ErrorResponse',
  'Response',
  'ResponseStreamEvent',
  'CreateResponse',
  'CreateChatCompletionRequest',
];

const [file, commit, date] = process.argv.slice(2);
if (!file || !commit || !date) {
  process.stderr.write('usage: node scripts/extract-openai-spec.js OPENAPI_JSON COMMIT DATE\n');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(file, 'utf8'));
const all = spec.components.schemas;
const kept = new Set();
const visit = (node) => {
  if (Array.isArray(node)) return node.forEach(visit);
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      const name = value.slice('#/components/schemas/'.length);
      if (!kept.has(name)) {
        kept.add(name);
        visit(all[name]);
      }
    } else visit(value);
  }
};
for (const root of ROOTS) {
  kept.add(root);
  visit(all[root]);
}
const schemas = Object.fromEntries([...kept].sort().map((name) => [name, all[name]]));
const out = {
  openapi: spec.openapi,
  info: {
    title: spec.info.title,
    version: spec.info.version,
    license: spec.info.license,
    'x-source': {
      repository: 'https://github.com/openai/openai-openapi',
      path: 'openapi.json',
      commit,
      date,
      note: `The schemas ${ROOTS.join(', ')} and every schema they reference, unchanged (scripts/extract-openai-spec.js).`,
    },
  },
  components: { schemas },
};
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
