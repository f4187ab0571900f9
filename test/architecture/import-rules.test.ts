import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';

// The house's import rules (.dependency-cruiser.cjs, drawn in docs/architecture.md) and its file
// sizes, checked on every `npm test` so the structure cannot drift silently.
const root = join(import.meta.dirname, '..', '..');
const MAX_CORE_FILE_LINES = 300;

async function cruiseTree(baseDir: string, paths: string[]): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(join(baseDir, 'tsconfig.json'));
  const previous = process.cwd();
  process.chdir(baseDir);
  try {
    const reporting = await cruise(paths, { ...options, baseDir, validate: true }, undefined, { tsConfig });
    return reporting.output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
}

function describeViolation(violation: IViolation): string {
  const cycle = violation.cycle?.map((step) => step.name).join(' -> ');
  return `${violation.rule.name}: ${violation.from} -> ${cycle ?? violation.to}`;
}

describe('the house', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'patchbay-import-rules-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('has no import circle and no import that runs up the layers in core, electron and renderer', async () => {
    const result = await cruiseTree(root, ['core', 'electron', 'renderer/src']);
    expect(result.summary.totalCruised).toBeGreaterThan(200);
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
  });

  it('refuses a deliberately added upward import, a circle and an unknown core folder', async () => {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    };
    write('core/protocols/decode.ts', "import { serve } from '../http/serve.ts';\nexport const decode = () => serve;\n");
    write('core/http/serve.ts', 'export const serve = 1;\n');
    write('tsconfig.json', readFileSync(join(root, 'tsconfig.json'), 'utf8'));
    write('core/routing/a.ts', "import type { B } from './b.ts';\nexport type A = B | 1;\n");
    write('core/routing/b.ts', "import type { A } from './a.ts';\nexport type B = A | 2;\n");
    write('core/gadgets/thing.ts', "import { serve } from '../http/serve.ts';\nexport const thing = serve;\n");
    const result = await cruiseTree(scratch, ['core']);
    const rules = result.summary.violations.map((violation) => `${violation.rule.name} ${violation.from}`);
    expect(rules).toContain('layer-protocols core/protocols/decode.ts');
    expect(rules).toContain('no-circular core/routing/a.ts');
    expect(rules).toContain('unknown-core-folder core/gadgets/thing.ts');
  });

  it(`keeps every file in core/ at ${MAX_CORE_FILE_LINES} lines or fewer`, () => {
    const files = execFileSync('git', ['ls-files', 'core'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|js|mjs|cjs)$/.test(file));
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_CORE_FILE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
