/**
 * A request as Codex CLI 0.169.0 sends it to `{base_url}/responses` (shared/reference/agents-observed.md:
 * headers, body keys, and its tool list in order: four function tools, the `multi_agent_v1`
 * namespace, three goal tools, web_search last). Schemas are shortened; names, order and shapes
 * are Codex's.
 */

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]) => ({
  type: 'function',
  name,
  description,
  strict: false,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});

const text = (description: string) => ({ type: 'string', description });

/** The functions of the multi_agent_v1 namespace, close_agent first as Codex lists them. */
export const MULTI_AGENT_FUNCTIONS = [
  fn('close_agent', 'Close a sub-agent.', { id: text('The agent id.') }, ['id']),
  fn('resume_agent', 'Resume a closed sub-agent.', { id: text('The agent id.') }, ['id']),
  fn('send_input', 'Send a message to a sub-agent.', { id: text('The agent id.'), message: text('What to send.') }, ['id', 'message']),
  fn('spawn_agent', 'Start a sub-agent on a task.', { message: text('The task.'), agent_type: text('The kind of agent.') }, ['message']),
  fn('wait_agent', 'Wait for sub-agents to finish.', { ids: { type: 'array', items: { type: 'string' } } }, ['ids']),
];

export const CODEX_TOOLS = [
  fn('exec_command', 'Runs a command in a PTY.', { cmd: text('The command.'), workdir: text('Where.'), yield_time_ms: { type: 'number' } }, ['cmd']),
  fn('write_stdin', 'Writes to a running session.', { session_id: { type: 'number' }, chars: text('What to write.') }, ['session_id']),
  fn('request_user_input', 'Asks the user.', { questions: { type: 'array', items: { type: 'object', properties: { question: text('The question.') } } } }, ['questions']),
  fn('view_image', 'Attaches a local image.', { path: text('The image path.') }, ['path']),
  { type: 'namespace', name: 'multi_agent_v1', description: 'Tools for spawning and managing sub-agents.', tools: MULTI_AGENT_FUNCTIONS },
  fn('get_goal', 'Reads the goal.', {}, []),
  fn('create_goal', 'Sets the goal.', { goal: text('The goal.') }, ['goal']),
  fn('update_goal', 'Updates the goal.', { goal: text('The goal.') }, ['goal']),
  { type: 'web_search', external_web_access: false },
];

/** Index of web_search in CODEX_TOOLS (its `tools[N]`). */
export const WEB_SEARCH_INDEX = CODEX_TOOLS.length - 1;

/** The function names a translated upstream should be offered, in order (web_search left out). */
export const CODEX_UPSTREAM_TOOL_NAMES = [
  'exec_command', 'write_stdin', 'request_user_input', 'view_image',
  ...MULTI_AGENT_FUNCTIONS.map((t) => `multi_agent_v1__${t.name}`),
  'get_goal', 'create_goal', 'update_goal',
];

const THREAD = '019a0000-0000-7000-8000-000000000001';
const TURN_METADATA = JSON.stringify({ turn_id: 'turn-1', sandbox: 'workspace-write' });

export function codexHeaders(key: string): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'text/event-stream',
    originator: 'codex_exec',
    'x-codex-window-id': `${THREAD}:0`,
    'x-codex-turn-metadata': TURN_METADATA,
    'x-codex-beta-features': 'remote_compaction_v2',
  };
}

export function codexBody(model: string, input: unknown[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model,
    instructions: 'You are Codex, a coding agent.',
    input,
    tools: CODEX_TOOLS,
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: THREAD,
    client_metadata: {
      turn_id: 'turn-1',
      root_turn_id: 'turn-1',
      thread_id: THREAD,
      session_id: THREAD,
      'x-codex-turn-metadata': TURN_METADATA,
      'x-codex-installation-id': '5f0c0000-0000-4000-8000-000000000002',
      'x-codex-window-id': `${THREAD}:0`,
    },
    ...overrides,
  };
}

export const userMessage = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

export interface CodexTurn {
  status: number;
  headers: Headers;
  /** Event types in order. */
  types: string[];
  /** The items Codex keeps: each response.output_item.done item. */
  items: Record<string, unknown>[];
  /** The terminal event's response, or the error body of a refusal. */
  completed: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

/** One Codex turn: POST /v1/responses with Codex's headers, the event stream read as Codex reads it. */
export async function codexTurn(baseUrl: string, key: string, body: Record<string, unknown>): Promise<CodexTurn> {
  const res = await fetch(`${baseUrl}/v1/responses`, { method: 'POST', headers: codexHeaders(key), body: JSON.stringify(body) });
  const raw = await res.text();
  if (!res.headers.get('content-type')?.includes('text/event-stream')) {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    return { status: res.status, headers: res.headers, types: [], items: [], completed: null, error: (parsed.error as Record<string, unknown>) ?? null };
  }
  const types: string[] = [];
  const items: Record<string, unknown>[] = [];
  let completed: Record<string, unknown> | null = null;
  for (const block of raw.split('\n\n')) {
    const data = block.split('\n').find((line) => line.startsWith('data: '));
    if (!data) continue;
    const event = JSON.parse(data.slice(6)) as { type: string; item?: Record<string, unknown>; response?: Record<string, unknown> };
    types.push(event.type);
    if (event.type === 'response.output_item.done') items.push(event.item!);
    if (event.type === 'response.completed') completed = event.response!;
  }
  return { status: res.status, headers: res.headers, types, items, completed, error: null };
}

/** Codex's replay of an output item: the same item without its `id` (and without status). */
export const replayed = ({ id: _id, status: _status, ...item }: Record<string, unknown>) => item;

/**
 * Codex CLI 0.171.0's "Responses Lite" request for a model it knows (observed 2026-11-29 against the
 * emulator with no model set: gpt-6.2-sol): no top-level `tools`; the first input item is an
 * `additional_tools` item holding the `functions` namespace with the freeform `exec` tool (code
 * mode: the model writes JavaScript that calls the other tools, a Lark grammar bounding it) and
 * function tools beside it; developer and user messages carry ids; `reasoning.context` and
 * `text.verbosity` are set. Descriptions are shortened; names, order and shapes are Codex's.
 */
export const CODEX_LITE_EXEC_GRAMMAR = '\nstart: pragma_source | plain_source\npragma_source: PRAGMA_LINE NEWLINE SOURCE\nplain_source: SOURCE\n\nPRAGMA_LINE: /[ \\t]*\\/\\/ @exec:[^\\r\\n]*/\nNEWLINE: /\\r?\\n/\nSOURCE: /[\\s\\S]+/\n';

export const CODEX_LITE_TOOLS_ITEM = {
  type: 'additional_tools',
  id: 'at_01a225a5-0108-7643-a9d1-a92a3f29306c',
  role: 'developer',
  tools: [
    {
      type: 'namespace',
      name: 'functions',
      description: '',
      tools: [
        { type: 'custom', name: 'exec', description: 'Run JavaScript code to orchestrate/compose tool calls. All nested tools are on the global `tools` object, e.g. `await tools.exec_command({cmd})`.', format: { type: 'grammar', syntax: 'lark', definition: CODEX_LITE_EXEC_GRAMMAR } },
        fn('wait', 'Waits on a yielded `exec` cell and returns new output or completion.', { cell_id: text('Identifier of the running exec cell.'), yield_time_ms: { type: 'number' } }, ['cell_id']),
        fn('request_user_input', 'Asks the user.', { questions: { type: 'array', items: { type: 'object', properties: { question: text('The question.') } } } }, ['questions']),
        fn('send_message_to_user_async', 'Sends the user a message.', { message: text('The message.') }, ['message']),
      ],
    },
  ],
};

/** The functions a translated upstream is offered for CODEX_LITE_TOOLS_ITEM: the namespace flattened, exec a function of one string. */
export const CODEX_LITE_UPSTREAM_TOOL_NAMES = ['functions__exec', 'functions__wait', 'functions__request_user_input', 'functions__send_message_to_user_async'];

export const developerMessage = (text: string) => ({ type: 'message', id: `msg_${Math.random().toString(16).slice(2)}`, role: 'developer', content: [{ type: 'input_text', text }] });

export function codexLiteBody(model: string, input: unknown[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { tools: _tools, instructions: _instructions, ...classic } = codexBody(model, input);
  return {
    ...classic,
    input: [CODEX_LITE_TOOLS_ITEM, developerMessage('You are Codex, an agent based on GPT-6.'), ...input],
    reasoning: { effort: 'low', context: 'all_turns' },
    text: { verbosity: 'low' },
    ...overrides,
  };
}
