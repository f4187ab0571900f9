import type { ModelScript, ScriptedTurn } from '../emulators/emulator-common.ts';
import { resultText } from '../emulators/emulator-common.ts';

/**
 * What the emulated model of every provider does when a real agent talks to it, so that a test can
 * predict each step:
 *
 * - "Run the shell command `CMD`": calls the agent's shell tool (Claude Code's `Bash`, Codex's
 *   `exec_command`) with CMD, when that tool is offered; in Codex's code mode (0.171.0 with a model
 *   it knows: only the freeform `exec` tool of the `functions` namespace, `functions.exec` as OpenAI
 *   offers it, `functions__exec` as Patchbay flattens it) writes the JavaScript that runs CMD
 *   through `tools.exec_command`; says it has no shell tool otherwise.
 * - When the request carries a tool result: answers from it ("The token is TOKEN-…" when the
 *   output holds a token, else "The command printed …").
 * - "Remember the word W": "Noted W."
 * - "What was the first word?": the W of the earliest "Remember the word W" in the history the
 *   agent replayed (so the answer proves the history reached the provider), "I was told no word." otherwise.
 * - "Say W": "W".
 * - Anything else (an agent's own background calls: session titles, summaries): a short JSON object
 *   when the request looks like it asks for one, else "OK".
 */
export const agentScript: ModelScript = (view) => {
  if (view.toolResults) {
    const output = view.toolResults.join('\n');
    const token = /TOKEN-[a-z0-9]+/.exec(output)?.[0];
    return { text: token ? `The token is ${token}.` : `The command printed: ${output.trim().slice(0, 200)}` };
  }
  const ask = view.lastUserText;
  const create = /Create the file (\S+) holding the line `([^`]+)` with apply_patch/.exec(ask);
  if (create) {
    if (!view.tools.includes('apply_patch')) return { text: `I have no apply_patch tool (offered: ${view.tools.join(', ')}).` };
    return { tool: 'apply_patch', input: { input: `*** Begin Patch\n*** Add File: ${create[1]}\n+${create[2]}\n*** End Patch\n` } };
  }
  const command = /Run the shell command `([^`]+)`/.exec(ask)?.[1];
  if (command) return shellCall(command, view.tools) ?? { text: `I have no shell tool (offered: ${view.tools.join(', ')}).` };
  const remember = /Remember the word (\S+?)\./.exec(ask)?.[1];
  if (remember) return { text: `Noted ${remember}.` };
  if (/What was the first word\?/.test(ask)) {
    for (const message of view.messages) {
      const word = message.role === 'user' ? /Remember the word (\S+?)\./.exec(resultText(message.content))?.[1] : undefined;
      if (word) return { text: `The first word was ${word}.` };
    }
    return { text: 'I was told no word.' };
  }
  const say = /Say (\S+?)\./.exec(ask)?.[1];
  if (say) return { text: say };
  const system = view.messages.filter((m) => m.role === 'system').map((m) => resultText(m.content)).join(' ');
  if (/title/i.test(system) && /json/i.test(system)) return { text: '{"title": "Agent test"}' };
  return { text: 'OK' };
};

/** Codex's code-mode tool, under the name each wire offers it by. */
export const CODE_MODE_TOOLS = ['functions.exec', 'functions__exec'];

function shellCall(command: string, tools: string[]): ScriptedTurn | undefined {
  if (tools.includes('Bash')) return { tool: 'Bash', input: { command, description: 'Print the token file' } };
  if (tools.includes('exec_command')) return { tool: 'exec_command', input: { cmd: command } };
  const exec = CODE_MODE_TOOLS.find((name) => tools.includes(name));
  // A freeform tool's text rides in `input` (the one argument a custom tool has as a function).
  if (exec) return { tool: exec, input: { input: `const result = await tools.exec_command({ cmd: ${JSON.stringify(command)} });\ntext(result.output);\n` } };
  return undefined;
}
