import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS script without declarations
import { renderIcons } from '../../scripts/make-icons.js';

describe('app and tray icons (build/icons, generated from build/icon.svg by scripts/make-icons.js)', () => {
  it('the committed icons are what the SVG renders to now (run node scripts/make-icons.js after editing it)', async () => {
    const files = (await renderIcons()) as Map<string, Buffer>;
    expect(files.size).toBe(16);
    for (const [name, data] of files) expect(readFileSync(new URL(`../../build/icons/${name}`, import.meta.url)).equals(data), name).toBe(true);
  });
});
