import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSecretsFile, SecretsFileError } from '../../core/secrets/read-secrets-file.ts';
import { redactSecrets } from '../../core/errors/redact-secrets.ts';

describe('readSecretsFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-secrets-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string, mode: number) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };

  it('reads NAME=value lines: comments, blank lines, export, quotes, CRLF', () => {
    const path = file('ok', '# comment\r\n\r\nOPENAI_API_KEY=sk-plain-value-123456\nexport GROQ_API_KEY="gsk_quoted value"\n  TOGETHER_API_KEY = \'tg-single\'  \nEMPTY=\n', 0o600);
    expect(readSecretsFile(path)).toEqual({ OPENAI_API_KEY: 'sk-plain-value-123456', GROQ_API_KEY: 'gsk_quoted value', TOGETHER_API_KEY: 'tg-single', EMPTY: '' });
    // Known to the redaction at once.
    expect(redactSecrets('upstream said sk-plain-value-123456')).not.toContain('sk-plain-value-123456');
  });

  it.each([0o644, 0o640, 0o604, 0o660, 0o666])('mode %o is refused with the chmod 600 fix', (mode) => {
    const path = file(`open-${mode.toString(8)}`, 'OPENAI_API_KEY=sk-x\n', mode);
    expect(() => readSecretsFile(path)).toThrow(SecretsFileError);
    expect(() => readSecretsFile(path)).toThrow(`(mode ${mode.toString(8)})`);
    expect(() => readSecretsFile(path)).toThrow(`chmod 600 ${path}`);
  });

  it('mode 400 is accepted; a missing file or a malformed line is refused without quoting the line', () => {
    expect(readSecretsFile(file('ro', 'A=b\n', 0o400))).toEqual({ A: 'b' });
    expect(() => readSecretsFile(join(dir, 'missing'))).toThrow(/Cannot read the secrets file .*missing/);
    const bad = file('bad', 'OPENAI_API_KEY=ok\nsk-a-secret-pasted-without-a-name\n', 0o600);
    expect(() => readSecretsFile(bad)).toThrow(/line 2: expected NAME=value/);
    const message = (() => {
      try {
        readSecretsFile(bad);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).not.toContain('sk-a-secret-pasted');
  });
});
