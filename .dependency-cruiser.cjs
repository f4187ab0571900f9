// The house rules, checked by `npm test` (test/architecture/import-rules.test.ts) and by
// `npx depcruise core electron renderer/src` by hand. docs/architecture.md draws the same layers.
//
// LAYERS lists core's folders from the ground up. A file may import its own folder and any folder
// of a lower layer, never one above (types included: TypeScript's `import type` is checked too).
// Folders on one line are neighbours: they may import each other, but no file may sit in a circle.
const LAYERS = [
  ['runtime', 'config', 'tokens'], // plain facts: the config schema, token counting, V8 helpers
  ['errors'], // typed errors and the redaction they render with
  ['secrets', 'catalog', 'sqlite'], // the keychain, the model catalog, the SQLite handle
  ['protocols', 'agents'], // wire protocols and their neutral model; agent launch plans
  ['providers', 'usage'], // upstream adapters; usage records (SQLite backend)
  ['routing', 'keys'], // planning and executing a route; keys, limits and budgets
  ['events', 'stores', 'telemetry'], // the event hub; the store interfaces both backends implement; OpenTelemetry traces and metrics
  ['postgres', 'management'], // the PostgreSQL backend; management operations by domain
  ['http'], // node:http for /v1, Express for /api and /ui
  ['app'], // the composition root
  ['cli'], // the command line
];

const rank = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index])));
const above = (index) => [...rank].filter(([, other]) => other > index).map(([folder]) => folder);

const layerRules = [...rank].map(([folder, index]) => ({
  name: `layer-${folder}`,
  comment: `core/${folder} imports only its own layer and those below it (.dependency-cruiser.cjs LAYERS)`,
  severity: 'error',
  from: { path: `^core/${folder}/` },
  to: { path: `^core/(${above(index).join('|') || '$^'})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles, types included: shared types and errors live below their users',
      severity: 'error',
      from: { path: '^(core|electron|renderer/src)/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'unknown-core-folder',
      comment: 'Every folder of core/ has a layer in LAYERS: a new one says where it stands',
      severity: 'error',
      from: { path: `^core/(?!(${[...rank.keys()].join('|')})/)` },
      to: {},
    },
    {
      name: 'core-not-above',
      comment: 'core never imports the desktop shell, the dashboard, tests or benchmarks',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^(electron|renderer|test|bench)/' },
    },
    {
      name: 'core-no-ui-frameworks',
      comment: 'core never imports Electron or React',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '(^|/)node_modules/(electron|react|react-dom)/' },
    },
    {
      name: 'express-inside-http',
      comment: 'Express stays inside core/http',
      severity: 'error',
      from: { path: '^core/', pathNot: '^core/http/' },
      to: { path: '(^|/)node_modules/express/' },
    },
    {
      name: 'sqlite-inside-stores',
      comment: 'better-sqlite3 stays in the SQLite stores',
      severity: 'error',
      from: { path: '^core/', pathNot: '^core/(sqlite|usage|keys|config|routing)/' },
      to: { path: '(^|/)node_modules/better-sqlite3/' },
    },
    {
      name: 'pg-inside-postgres',
      comment: 'The PostgreSQL driver stays in core/postgres',
      severity: 'error',
      from: { path: '^core/', pathNot: '^core/postgres/' },
      to: { path: '(^|/)node_modules/pg/' },
    },
    {
      name: 'electron-only-core',
      comment: 'The desktop shell takes core, never the dashboard, tests or benchmarks',
      severity: 'error',
      from: { path: '^electron/' },
      to: { path: '^(renderer|test|bench)/' },
    },
    {
      name: 'renderer-core-types-only',
      comment: 'The dashboard takes types from core, and its pure zod schemas (one validation for UI and API)',
      severity: 'error',
      from: { path: '^renderer/src/' },
      to: { path: '^core/', pathNot: '^core/.*-schemas?\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-not-electron',
      comment: 'The dashboard runs in a browser too: it never imports the desktop shell',
      severity: 'error',
      from: { path: '^renderer/src/' },
      to: { path: '^electron/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/|\\.test\\.tsx?$|/test-support/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
