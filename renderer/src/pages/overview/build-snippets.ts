export interface Snippet {
  id: string;
  label: string;
  language: string;
  code: string;
}

export const KEY_PLACEHOLDER = 'YOUR_PATCHBAY_KEY';

/**
 * Copy-ready client code for the base URL. With a just-created key the snippets carry it (the user
 * copies once and runs); otherwise they read it from PATCHBAY_KEY so no secret lands in a file.
 */
export function buildSnippets(baseUrl: string, key: string | null, model = 'gpt-4o-mini'): Snippet[] {
  const url = baseUrl.replace(/\/+$/, '');
  const js = key ? `'${key}'` : 'process.env.PATCHBAY_KEY';
  const py = key ? `"${key}"` : 'os.environ["PATCHBAY_KEY"]';
  const pyImport = key ? '' : 'import os\n';
  const shellKey = key ?? '$PATCHBAY_KEY';
  return [
    {
      id: 'openai-js',
      label: 'OpenAI JS',
      language: 'js',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${url}', apiKey: ${js} });
const reply = await client.chat.completions.create({
  model: '${model}',
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(reply.choices[0].message.content);`,
    },
    {
      id: 'openai-python',
      label: 'OpenAI Python',
      language: 'python',
      code: `${pyImport}from openai import OpenAI

client = OpenAI(base_url="${url}", api_key=${py})
reply = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(reply.choices[0].message.content)`,
    },
    {
      id: 'curl',
      label: 'curl',
      language: 'sh',
      code: `curl ${url}/chat/completions \\
  -H "Authorization: Bearer ${shellKey}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`,
    },
    {
      id: 'langchain',
      label: 'LangChain (Python)',
      language: 'python',
      code: `${pyImport}from langchain_openai import ChatOpenAI

llm = ChatOpenAI(model="${model}", base_url="${url}", api_key=${py})
print(llm.invoke("Hello").content)`,
    },
    {
      id: 'vercel-ai',
      label: 'Vercel AI SDK',
      language: 'js',
      code: `import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';

const patchbay = createOpenAICompatible({ name: 'patchbay', baseURL: '${url}', apiKey: ${js} });
const { text } = await generateText({ model: patchbay('${model}'), prompt: 'Hello' });
console.log(text);`,
    },
  ];
}

/** What GET /api/agents says of one coding agent (core/management/describe-agents.ts). */
export interface AgentSnippetSource {
  agent: string;
  name: string;
  command: string;
  shell: string;
}

/**
 * Claude Code and Codex CLI beside the clients: the one command first, then the same by hand
 * (Patchbay's own plan of it, so the two never differ). A just-created key takes the place of
 * $PATCHBAY_KEY in the by-hand part.
 */
export function buildAgentSnippets(agents: AgentSnippetSource[], key: string | null): Snippet[] {
  return agents.map((a) => ({
    id: `agent-${a.agent}`,
    label: a.name,
    language: 'sh',
    code: `# One command, while Patchbay runs (it makes a key for ${a.name} on first use and keeps it in the keychain):
${a.command}

# The same by hand:
${key ? a.shell.replaceAll('$PATCHBAY_KEY', key) : a.shell}`,
  }));
}
