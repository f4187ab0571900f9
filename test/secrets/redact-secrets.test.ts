import { describe, expect, it } from 'vitest';
import { distinctivePart, redactSecrets, rememberSecret } from '../../core/errors/redact-secrets.ts';

const ANTHROPIC = 'sk-ant-api03-Zq8vN3xK7pL2mR9tW4yB6cD1fG5hJ0kQ';
const GEMINI = 'AIzaSyD4x9Kq2LmN8pR3tV6wZ1bC5fH7jE0gUio';
const GROQ = 'gsk_9fT2kLmQ4xR7vN1pZ8wB3cY6dH0jE5gU';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('redacting provider secrets from upstream text', () => {
  rememberSecret(ANTHROPIC);
  rememberSecret(GEMINI);
  rememberSecret(GROQ);

  it('takes the distinctive part after a well-known prefix', () => {
    expect(distinctivePart(ANTHROPIC)).toBe('Zq8vN3xK7pL2mR9tW4yB6cD1fG5hJ0kQ');
    expect(distinctivePart(GEMINI)).toBe('SyD4x9Kq2LmN8pR3tV6wZ1bC5fH7jE0gUio');
    expect(distinctivePart(GROQ)).toBe('9fT2kLmQ4xR7vN1pZ8wB3cY6dH0jE5gU');
    expect(distinctivePart('sk-short')).toBe('sk-short');
  });

  it.each([
    ['as sent', `Bearer ${ANTHROPIC}`],
    ['without its prefix', `key id ${distinctivePart(ANTHROPIC)} is invalid`],
    ['upper-cased', `KEY=${GROQ.toUpperCase()}`],
    ['lower-cased', `key=${GEMINI.toLowerCase()}`],
    ['split by spaces', `k: ${GROQ.match(/.{1,4}/g)!.join(' ')}`],
    ['wrapped over lines', `k:\n${distinctivePart(ANTHROPIC).match(/.{1,6}/g)!.join('\n  ')}`],
    ['URL-encoded', `?key=${encodeURIComponent(GEMINI)}`],
    ['JSON-escaped twice', JSON.stringify(JSON.stringify({ key: GROQ }))],
    ['base64', b64(ANTHROPIC)],
    ['base64url without prefix', Buffer.from(distinctivePart(GEMINI)).toString('base64url')],
    ['in a Basic credential at each alignment', [b64(`a:${GROQ}`), b64(`ab:${GROQ}`), b64(`abc:${GROQ}`)].join(' ')],
    ['base64 wrapped at 8 characters', b64(`x-api-key: ${ANTHROPIC}`).match(/.{1,8}/g)!.join('\n')],
    ['hex', Buffer.from(GROQ).toString('hex').toUpperCase()],
  ])('%s', (_form, text) => {
    const out = redactSecrets(text);
    expect(out).toContain('[redacted]');
    const squeezed = out.replace(/\s+/g, '').toLowerCase();
    for (const secret of [ANTHROPIC, GEMINI, GROQ]) {
      const part = distinctivePart(secret);
      expect(squeezed).not.toContain(part.toLowerCase());
      // No 12 characters of the secret's own base64 survive at any alignment.
      for (let skip = 0; skip < 3; skip++) expect(out.replace(/\s+/g, '')).not.toContain(Buffer.from(part.slice(skip)).toString('base64').slice(4, 16));
    }
  });

  it('a short secret is redacted only as it is, not loosely', () => {
    rememberSecret('x9');
    expect(redactSecrets('key x9; X9; 7839; status 78')).toBe('key [redacted]; X9; 7839; status 78');
  });

  it('leaves ordinary text alone', () => {
    const text = 'Rate limit reached for gpt-4o in organization org-abc on tokens per min. Limit 30000, used 29750. SGVsbG8gd29ybGQ=';
    expect(redactSecrets(text)).toBe(text);
  });
});
