import { describe, expect, it } from 'vitest';
import { BASELINE_SCHEMA, oldestCompatibleSchema, planSchema } from '../../core/postgres/schema-compatibility.ts';

describe('planSchema: what a release does with the database it finds', () => {
  const code = { schema: 8, release: '0.3.0' };
  it.each([
    [{ version: 0, oldestCompatible: null, writtenBy: null }, { action: 'migrate', from: 0, to: 8 }],
    [{ version: 6, oldestCompatible: null, writtenBy: null }, { action: 'migrate', from: 6, to: 8 }],
    [{ version: 8, oldestCompatible: 6, writtenBy: '0.3.0' }, { action: 'use' }],
  ])('%j -> %j', (database, plan) => expect(planSchema(database, code)).toEqual(plan));

  it('a newer schema that still works with it (expand steps only): used as it is, with a note for the log', () => {
    const plan = planSchema({ version: 9, oldestCompatible: 7, writtenBy: '0.4.0' }, code);
    expect(plan).toEqual({ action: 'use-newer', note: expect.stringContaining("The database's schema (9, from Patchbay 0.4.0) is newer than this Patchbay's (0.3.0, schema 8)") });
  });

  it('past a contract step, or a newer schema of a release before this rule: refused, naming what to run', () => {
    const contracted = planSchema({ version: 10, oldestCompatible: 9, writtenBy: '0.5.0' }, code);
    expect(contracted.action === 'refuse' && contracted.error.message).toContain('Run Patchbay 0.5.0 or newer on this replica as well');
    const unknown = planSchema({ version: 9, oldestCompatible: null, writtenBy: null }, code);
    expect(unknown.action === 'refuse' && unknown.error.message).toContain('migrated by a newer Patchbay), which works only with Patchbay releases of schema 9 or newer');
  });
});

describe('oldestCompatibleSchema', () => {
  it('schemas up to the baseline work with their own release and newer; expand steps keep the oldest; a contract step raises it', () => {
    expect(oldestCompatibleSchema(3)).toBe(3);
    expect(oldestCompatibleSchema(BASELINE_SCHEMA)).toBe(BASELINE_SCHEMA);
    expect(oldestCompatibleSchema(BASELINE_SCHEMA + 2)).toBe(BASELINE_SCHEMA);
    const contracts = new Map([[BASELINE_SCHEMA + 3, BASELINE_SCHEMA + 2]]);
    expect(oldestCompatibleSchema(BASELINE_SCHEMA + 2, contracts)).toBe(BASELINE_SCHEMA);
    expect(oldestCompatibleSchema(BASELINE_SCHEMA + 4, contracts)).toBe(BASELINE_SCHEMA + 2);
  });
});
