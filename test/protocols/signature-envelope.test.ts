import { describe, expect, it } from 'vitest';
import { openSignature, sealSignature } from '../../core/protocols/neutral/signature-envelope.ts';

describe('signature envelope (who made a reasoning signature)', () => {
  it('seals a signature or redacted data with the provider that made it, and opens it again', () => {
    expect(sealSignature('google', 'EqsFCqgF')).toBe('patchbay:google:EqsFCqgF');
    expect(openSignature('patchbay:google:EqsFCqgF')).toEqual({ provider: 'google', value: 'EqsFCqgF', redacted: false });
    expect(sealSignature('anthropic', 'EmwKAhgB', true)).toBe('patchbay:anthropic:redacted:EmwKAhgB');
    expect(openSignature('patchbay:anthropic:redacted:EmwKAhgB')).toEqual({ provider: 'anthropic', value: 'EmwKAhgB', redacted: true });
  });

  it('carries the reasoning text a signature covers when asked, whatever it holds', () => {
    const text = 'Step 1: a:b — "quoted"\nnaïve ∑';
    const sealed = sealSignature('anthropic', 'EmwKAhgB', false, text);
    expect(sealed).toMatch(/^patchbay:anthropic:text:[A-Za-z0-9_-]+:EmwKAhgB$/);
    expect(openSignature(sealed)).toEqual({ provider: 'anthropic', value: 'EmwKAhgB', redacted: false, text });
    expect(openSignature(sealSignature('anthropic', 'EmwKAhgB', false, ''))).toEqual({ provider: 'anthropic', value: 'EmwKAhgB', redacted: false, text: '' });
  });

  it("a signature without the envelope is the caller's own upstream's, not Patchbay's to open", () => {
    expect(openSignature('EqQBCkgIARABGAIiQL')).toBeNull();
    expect(openSignature('gAAAAABp...')).toBeNull();
    expect(openSignature('patchbay:')).toBeNull();
  });
});
