import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_ENV, NODE_FLAGS } from '../../bin/node-flags.js';

describe('the V8 flags Patchbay runs with', () => {
  it('are the same in the bin\'s shebang as everywhere else (NODE_FLAGS)', () => {
    const shebang = readFileSync(new URL('../../bin/patchbay.js', import.meta.url), 'utf8').split('\n')[0];
    const env = Object.entries(NODE_ENV).map(([name, value]) => `${name}=${value}`).join(' ');
    expect(shebang).toBe(`#!/usr/bin/env -S ${env} node ${NODE_FLAGS.join(' ')}`);
  });
});
