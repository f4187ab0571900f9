import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';

const config = JSON.parse(readFileSync(new URL('../../build/electron-builder.json', import.meta.url), 'utf8'));
const schema = JSON.parse(readFileSync(new URL('../../node_modules/app-builder-lib/scheme.json', import.meta.url), 'utf8'));

function validate(value: unknown) {
  // electron-builder's schema uses its own keywords (tsType...); allow unknown keywords, check the rest strictly.
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check = ajv.compile(schema);
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('electron-builder configuration (build/electron-builder.json)', () => {
  it("is valid against electron-builder's own schema", () => {
    expect(validate(config)).toEqual([]);
  });

  it('the schema check catches a mistake (a misspelt option)', () => {
    expect(validate({ ...config, asarUnpak: ['x'] }).length).toBeGreaterThan(0);
  });

  it('builds AppImage and deb, dmg, nsis; native modules unpacked from the asar and rebuilt for Electron in its own app dir', () => {
    expect([config.linux.target, config.mac.target, config.win.target]).toEqual([['AppImage', 'deb'], ['dmg'], ['nsis']]);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/node_modules/better-sqlite3/**', '**/node_modules/@napi-rs/keyring*/**']));
    expect(config.directories).toMatchObject({ app: 'dist-electron', output: 'dist-app' });
    expect(config.npmRebuild).toBe(true);
  });
});
