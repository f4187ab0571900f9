import { describe, expect, it } from 'vitest';
import { buildAgentSnippets, buildSnippets } from './build-snippets.ts';

describe('client snippets', () => {
  it('covers the five clients, each using the base URL', () => {
    const snippets = buildSnippets('http://127.0.0.1:8790/v1/', null);
    expect(snippets.map((s) => s.id)).toEqual(['openai-js', 'openai-python', 'curl', 'langchain', 'vercel-ai']);
    for (const s of snippets) expect(s.code).toContain('http://127.0.0.1:8790/v1');
    expect(snippets.find((s) => s.id === 'curl')!.code).toContain('http://127.0.0.1:8790/v1/chat/completions');
  });

  it('without a key read it from PATCHBAY_KEY, so no secret lands in a file', () => {
    const byId = Object.fromEntries(buildSnippets('http://h/v1', null).map((s) => [s.id, s.code]));
    expect(byId['openai-js']).toContain('apiKey: process.env.PATCHBAY_KEY');
    expect(byId['openai-python']).toContain('import os');
    expect(byId['openai-python']).toContain('api_key=os.environ["PATCHBAY_KEY"]');
    expect(byId.curl).toContain('Bearer $PATCHBAY_KEY');
    expect(byId['vercel-ai']).toContain("createOpenAICompatible({ name: 'patchbay', baseURL: 'http://h/v1', apiKey: process.env.PATCHBAY_KEY })");
  });

  it('with a just-created key carry it, ready to run', () => {
    const byId = Object.fromEntries(buildSnippets('http://h/v1', 'pb-NEW').map((s) => [s.id, s.code]));
    expect(byId['openai-js']).toContain("apiKey: 'pb-NEW'");
    expect(byId.langchain).toContain('api_key="pb-NEW"');
    expect(byId.curl).toContain('Bearer pb-NEW');
    expect(byId['openai-python']).not.toContain('import os');
  });
});

describe('agent snippets', () => {
  const agents = [{ agent: 'claude', name: 'Claude Code', command: 'patchbay claude', shell: 'export ANTHROPIC_BASE_URL=http://h\nexport ANTHROPIC_AUTH_TOKEN=$PATCHBAY_KEY\nclaude' }];

  it('put the one command first, then the same by hand', () => {
    const [snippet] = buildAgentSnippets(agents, null);
    expect(snippet).toMatchObject({ id: 'agent-claude', label: 'Claude Code', language: 'sh' });
    expect(snippet.code.indexOf('patchbay claude')).toBeLessThan(snippet.code.indexOf('export ANTHROPIC_BASE_URL=http://h'));
    expect(snippet.code).toContain('ANTHROPIC_AUTH_TOKEN=$PATCHBAY_KEY');
  });

  it('carry a just-created key in the by-hand part', () => {
    expect(buildAgentSnippets(agents, 'pb-NEW')[0].code).toContain('ANTHROPIC_AUTH_TOKEN=pb-NEW');
  });
});
