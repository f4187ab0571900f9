import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  // Issue 34 (8): only the mode was checked. Changing a file's owner needs root: as another user these are skipped.
  const root = process.getuid?.() === 0;
  const NOBODY = 65534;

  it.runIf(root)('a mode-600 file owned by another user is refused, with a one-line message naming the owner and the fix', () => {
    const path = file('foreign', 'OPENAI_API_KEY=sk-planted-by-another-user\n', 0o600);
    chownSync(path, NOBODY, NOBODY);
    expect(() => readSecretsFile(path)).toThrow(SecretsFileError);
    expect(() => readSecretsFile(path)).toThrow(`The secrets file ${path} belongs to another user (uid ${NOBODY}), not to the user Patchbay runs as (uid 0)`);
    expect(() => readSecretsFile(path)).toThrow(`chown 0 ${path}`);
    expect(() => readSecretsFile(path)).not.toThrow(/\n/);
  });

  it.runIf(root)('a symlink in a folder others can write, or to a file in such a folder, is refused; one in a private folder to a private file is read', () => {
    const mine = file('mine', 'OPENAI_API_KEY=sk-mine-through-a-link\n', 0o600);
    // A world-writable folder (like /tmp): another user could have planted the link, or swap it.
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o1777);
    const planted = join(open, 'secrets.env');
    symlinkSync(mine, planted);
    expect(() => readSecretsFile(planted)).toThrow(SecretsFileError);
    expect(() => readSecretsFile(planted)).toThrow(`The secrets file ${planted} is a link in ${open}, a folder other users can write`);
    // A folder owned by another user, even at 755: that user can swap the link.
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, NOBODY, NOBODY);
    const inTheirs = join(theirs, 'secrets.env');
    symlinkSync(mine, inTheirs);
    expect(() => readSecretsFile(inTheirs)).toThrow(`is a link in ${theirs}, a folder other users can write`);
    // A private link to a file in a world-writable folder: the file can be replaced under it.
    const target = join(open, 'target.env');
    writeFileSync(target, 'OPENAI_API_KEY=sk-in-an-open-folder\n', { mode: 0o600 });
    const safe = join(dir, 'private');
    mkdirSync(safe, { mode: 0o700 });
    const toOpen = join(safe, 'secrets.env');
    symlinkSync(target, toOpen);
    expect(() => readSecretsFile(toOpen)).toThrow(`The secrets file ${toOpen} leads to ${target}, in ${open}, a folder other users can write`);
    // What a deployment does (a link to a file kept in a private folder) still works.
    const good = join(safe, 'link.env');
    symlinkSync(mine, good);
    expect(readSecretsFile(good)).toEqual({ OPENAI_API_KEY: 'sk-mine-through-a-link' });
  });
});
