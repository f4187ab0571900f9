import { createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { chosenToolIndex, scriptView, type ModelScript, type NeutralMessage } from './emulator-common.ts';
import { sendJson, writeSse, type Fault } from './emulator-server.ts';
import { countTokens, limitText, splitDeltas, textOf } from './openai-emulator.ts';
import { callableFunctions, offeredTools, validateResponsesRequest, type CallableFunction } from './openai-responses-request.ts';

/**
 * OpenAI's POST /v1/responses, written from OpenAI's public reference (the openai-node types in
 * resources/responses/responses.d.ts and the recorded event order they document), not from
 * Patchbay's codec: a response object with message / function_call / reasoning output items,
 * usage with both detail objects, and the SSE event sequence with sequence_number from 0.
 * Requests are checked as OpenAI checks them (openai-responses-request.ts: unknown fields and tool
 * types refused; namespace tools, client_metadata, prompt_cache_key and include as Codex sends them);
 * the model calls functions inside a `namespace` tool by name with the namespace beside it, and a
 * custom (freeform) tool with a `custom_tool_call` item whose `input` is text. Tools declared in an
 * `additional_tools` input item are offered from that item on (so for the answer, at the end).
 * Stateless like `store: false`: previous_response_id names nothing and is refused. Reasoning
 * items carry an encrypted_content only this emulator can verify (a nonce and its HMAC), as
 * OpenAI refuses encrypted content it did not write.
 */

type Item = Record<string, unknown> & { type?: string; role?: string };

const SECRET = randomBytes(16);
/** Opaque, and verifiable on its own: Codex replays reasoning items without their `id`. */
const seal = () => {
  const nonce = randomBytes(9).toString('base64url');
  return `gAAAA${nonce}.${createHmac('sha256', SECRET).update(nonce).digest('base64url')}`;
};
const verified = (content: unknown) => {
  const match = typeof content === 'string' ? /^gAAAA([^.]+)\.(.+)$/.exec(content) : null;
  return match !== null && createHmac('sha256', SECRET).update(match[1]).digest('base64url') === match[2];
};

export interface ResponsesHelpers {
  script?: ModelScript | null;
  chatModels: string[];
  chunkDelayMs: number;
  headers: Record<string, string>;
  error(res: ServerResponse, status: number, message: string, type: string, code: string | null, param?: string | null): void;
}

/** A planned tool call: a function's JSON arguments, or a custom tool's free text. */
type PlannedCall = { name: string; namespace?: string } & ({ arguments: string } | { input: string });

/** The call of `tool` with these arguments; a custom tool takes the text of its one `input` argument (or all of them as JSON). */
function callOf(tool: CallableFunction, args: Record<string, unknown>): PlannedCall {
  const names = { name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}) };
  if (!tool.custom) return { ...names, arguments: JSON.stringify(args) };
  return { ...names, input: typeof args.input === 'string' ? args.input : JSON.stringify(args) };
}

/** The deterministic answer: what the emulated model "says" to this input. */
function plan(body: Record<string, unknown>, items: Item[], script: ModelScript | null): { text: string; call: PlannedCall | null } {
  const offered = offeredTools(body);
  const tools = callableFunctions(offered);
  const last = items[items.length - 1];
  const scripted = script?.(scriptView(neutralItems(items, body.instructions), toolNames(offered)));
  if (scripted && 'tool' in scripted) {
    const tool = tools.find((t) => (t.namespace ? `${t.namespace}.${t.name}` : t.name) === scripted.tool) ?? { name: scripted.tool, custom: false };
    return { text: '', call: callOf(tool, scripted.input) };
  }
  if (scripted) return { text: scripted.text, call: null };
  const choice = body.tool_choice as string | { type: string; name?: string; namespace?: string } | undefined;
  if (last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output') return { text: `The tool returned ${typeof last.output === 'string' ? last.output : textOf(last.output)}`, call: null };
  if (tools.length > 0 && choice !== 'none' && (last?.type ?? 'message') === 'message' && last?.role === 'user') {
    const chosen = tools[chosenToolIndex(tools.map((t) => t.name), textOf(last.content))];
    const tool = typeof choice === 'object' && choice.name ? (tools.find((t) => t.name === choice.name && t.namespace === choice.namespace) ?? chosen) : chosen;
    if (tool.custom) return { text: '', call: callOf(tool, { input: `${tool.name}-input` }) };
    const props = Object.keys(tool.parameters?.properties ?? {});
    const required = tool.parameters?.required ?? props;
    return { text: '', call: callOf(tool, Object.fromEntries(required.map((n) => [n, `${n}-value`]))) };
  }
  const format = (body.text as { format?: { type?: string; schema?: { properties?: Record<string, unknown>; required?: string[] } } } | undefined)?.format;
  if (format?.type === 'json_schema') {
    const props = format.schema?.required ?? Object.keys(format.schema?.properties ?? {});
    return { text: JSON.stringify(Object.fromEntries(props.map((n) => [n, `${n}-value`]))), call: null };
  }
  const lastUser = [...items].reverse().find((i) => (i.type ?? 'message') === 'message' && i.role === 'user');
  return { text: `You said: ${textOf(lastUser?.content)}`, call: null };
}

/** Input items as neutral messages (what a script sees): messages by role, calls as assistant turns, outputs as tool results. */
function neutralItems(items: Item[], instructions: unknown): NeutralMessage[] {
  const out: NeutralMessage[] = typeof instructions === 'string' ? [{ role: 'system', content: instructions }] : [];
  for (const item of items) {
    const type = item.type ?? 'message';
    if (type === 'message') out.push({ role: item.role === 'developer' ? 'system' : String(item.role), content: item.content });
    else if (type === 'function_call' || type === 'custom_tool_call') out.push({ role: 'assistant', content: `${item.namespace ? `${String(item.namespace)}.` : ''}${String(item.name)}(${String(item.arguments ?? item.input ?? '')})` });
    else if (type === 'function_call_output' || type === 'custom_tool_call_output') out.push({ role: 'tool', content: typeof item.output === 'string' ? item.output : textOf(item.output) });
  }
  return out;
}

/** Names of the tools offered: functions and custom tools by name, a namespace's functions as `namespace.name`, built-ins by type. */
function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return (tools as Item[]).flatMap((t) => {
    if (t.type === 'namespace') return ((t.tools as Item[] | undefined) ?? []).map((inner) => `${String(t.name)}.${String(inner.name)}`);
    return typeof t.name === 'string' ? [t.name] : [String(t.type)];
  });
}

export async function answerResponses(res: ServerResponse, body: Record<string, unknown>, fault: Fault | undefined, h: ResponsesHelpers): Promise<void> {
  const model = body.model;
  if (typeof model !== 'string' || !h.chatModels.includes(model)) return h.error(res, 404, `The model \`${String(model)}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', 'model');
  const problem = validateResponsesRequest(body);
  if (problem) return h.error(res, 400, problem.message, 'invalid_request_error', problem.code, problem.param);
  if (typeof body.previous_response_id === 'string') return h.error(res, 400, `Previous response with id '${body.previous_response_id}' not found.`, 'invalid_request_error', 'previous_response_not_found', 'previous_response_id');
  const items: Item[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : ((body.input as Item[] | undefined) ?? []);
  if (items.length === 0) return h.error(res, 400, "Invalid 'input': empty array.", 'invalid_request_error', 'empty_array', 'input');
  for (const [index, item] of items.entries()) {
    if (item.type !== 'reasoning') continue;
    if (!verified(item.encrypted_content)) return h.error(res, 400, `The encrypted content for item ${String(item.id)} could not be verified.`, 'invalid_request_error', 'invalid_encrypted_content', `input[${index}].encrypted_content`);
  }

  const id = `resp_${randomBytes(12).toString('hex')}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const answer = plan(body, items, h.script ?? null);
  const maxTokens = body.max_output_tokens as number | undefined;
  const limited = answer.call ? { text: '', finish: 'stop' as const } : limitText(answer.text, maxTokens, undefined);
  const reasoning = body.reasoning && typeof body.reasoning === 'object' && (body.reasoning as { effort?: string }).effort !== 'none';
  const include = Array.isArray(body.include) ? (body.include as string[]) : [];
  const output: Item[] = [];
  if (reasoning) {
    const rsId = `rs_${randomBytes(8).toString('hex')}`;
    output.push({ id: rsId, type: 'reasoning', summary: [{ type: 'summary_text', text: '**Thinking** about it' }], ...(include.includes('reasoning.encrypted_content') ? { encrypted_content: seal() } : {}) });
  }
  const callId = `call_${randomBytes(8).toString('hex')}`;
  if (answer.call && 'input' in answer.call) output.push({ id: `ctc_${randomBytes(8).toString('hex')}`, type: 'custom_tool_call', call_id: callId, ...answer.call });
  else if (answer.call) output.push({ id: `fc_${randomBytes(8).toString('hex')}`, type: 'function_call', status: 'completed', call_id: callId, ...answer.call });
  else output.push({ id: `msg_${randomBytes(8).toString('hex')}`, type: 'message', status: limited.finish === 'length' ? 'incomplete' : 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: limited.text }] });

  const inputTokens = items.reduce((sum, i) => sum + countTokens(textOf(i.content) + (typeof i.output === 'string' ? ` ${i.output}` : '') + (typeof i.arguments === 'string' ? ` ${i.arguments}` : '')) + 3, 3) + countTokens(String(body.instructions ?? ''));
  const reasoningTokens = reasoning ? 5 : 0;
  const outputTokens = (answer.call ? countTokens('input' in answer.call ? answer.call.input : answer.call.arguments) + 5 : countTokens(limited.text)) + reasoningTokens;
  // The spec's ResponseUsage: both detail objects, cache writes counted beside cache reads.
  const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: reasoningTokens }, total_tokens: inputTokens + outputTokens };
  const cut = limited.finish === 'length';
  const base = {
    id, object: 'response', created_at: createdAt, error: null, instructions: body.instructions ?? null, max_output_tokens: maxTokens ?? null, model: `${model}-2024-08-06`,
    parallel_tool_calls: body.parallel_tool_calls ?? true, previous_response_id: null, reasoning: body.reasoning ?? { effort: null, summary: null }, store: body.store ?? true,
    temperature: body.temperature ?? 1, text: body.text ?? { format: { type: 'text' } }, tool_choice: body.tool_choice ?? 'auto', tools: body.tools ?? [], top_p: body.top_p ?? 1, truncation: 'disabled', ...(typeof body.user === 'string' ? { user: body.user } : {}), metadata: body.metadata ?? {},
  };
  const final = { ...base, status: cut ? 'incomplete' : 'completed', incomplete_details: cut ? { reason: 'max_output_tokens' } : null, output, usage };
  if (body.stream !== true) return sendJson(res, 200, final, h.headers);

  const events: string[] = [];
  let seq = 0;
  const emit = (payload: Record<string, unknown> & { type: string }) => events.push(`event: ${payload.type}\ndata: ${JSON.stringify({ ...payload, sequence_number: seq++ })}\n\n`);
  // The spec's Response has no null usage: left out until known.
  const inProgress = { ...base, status: 'in_progress', incomplete_details: null, output: [] };
  emit({ type: 'response.created', response: inProgress });
  emit({ type: 'response.in_progress', response: inProgress });
  for (const [index, item] of output.entries()) {
    const at = { item_id: item.id, output_index: index };
    if (item.type === 'reasoning') {
      emit({ type: 'response.output_item.added', output_index: index, item: { ...item, summary: [] } });
      const text = (item.summary as { text: string }[])[0].text;
      emit({ type: 'response.reasoning_summary_part.added', ...at, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const delta of splitDeltas(text)) emit({ type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta });
      emit({ type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text });
      emit({ type: 'response.reasoning_summary_part.done', ...at, summary_index: 0, part: { type: 'summary_text', text } });
    } else if (item.type === 'function_call') {
      emit({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
      const args = item.arguments as string;
      const middle = Math.ceil(args.length / 2);
      for (const delta of [args.slice(0, middle), args.slice(middle)]) emit({ type: 'response.function_call_arguments.delta', ...at, delta });
      emit({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: args });
    } else if (item.type === 'custom_tool_call') {
      emit({ type: 'response.output_item.added', output_index: index, item: { ...item, input: '' } });
      const input = item.input as string;
      for (const delta of splitDeltas(input)) emit({ type: 'response.custom_tool_call_input.delta', ...at, delta });
      emit({ type: 'response.custom_tool_call_input.done', ...at, input });
    } else {
      const text = limited.text;
      const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
      emit({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      emit({ type: 'response.content_part.added', ...at, content_index: 0, part });
      for (const delta of splitDeltas(text)) emit({ type: 'response.output_text.delta', ...at, content_index: 0, delta, logprobs: [] });
      emit({ type: 'response.output_text.done', ...at, content_index: 0, text, logprobs: [] });
      emit({ type: 'response.content_part.done', ...at, content_index: 0, part: { ...part, text } });
    }
    emit({ type: 'response.output_item.done', output_index: index, item });
  }
  emit({ type: cut ? 'response.incomplete' : 'response.completed', response: final });
  // The failure takes the place of the event it cuts, so it carries that event's number.
  const failed = () => {
    const payload = { type: 'response.failed', sequence_number: fault?.midStream?.afterEvents ?? seq, response: { ...inProgress, status: 'failed', error: { code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' } } };
    return `event: response.failed\ndata: ${JSON.stringify(payload)}\n\n`;
  };
  await writeSse(res, events, { chunkDelayMs: h.chunkDelayMs, fault, errorEvent: failed, headers: h.headers });
}
