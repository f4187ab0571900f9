import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import type { StreamPart } from '../neutral/stream-part.ts';
import { sealSignature } from '../neutral/signature-envelope.ts';
import { CUSTOM_TOOL_INPUT } from './decode-request.ts';
import { failureCode, failureMessage } from './encode-error.ts';
import { encodeResponsesUsage } from './map-usage.ts';
import { responsesEvent } from './responses-codec.ts';
import { NO_TOOL_NAMES, type ResponsesToolNames } from './tool-names.ts';

type OutputItem = Record<string, unknown> & { id: string; type: string };

/** The open output item: its kind, position, id and what has been streamed into it. */
interface OpenItem {
  kind: 'message' | 'function_call' | 'custom_tool_call' | 'reasoning';
  index: number;
  id: string;
  text: string;
  callId?: string;
  name?: string;
  /** The namespace of a namespaced function, written beside its name as the caller declared them. */
  namespace?: string;
  signature?: string;
  /** The signature is redacted reasoning's data (no text to show), sealed as such. */
  redacted?: boolean;
}

/** One Responses stream being written. Never mutated: each part returns a new state. */
export interface ResponsesEncodeState {
  /** The response object's fields that are known before output (id, model, the request's echo). */
  readonly base: Record<string, unknown> & { id: string; model: string };
  /** Which upstream wrote the answer: sealed with its signatures in reasoning items (signature-envelope.ts) so a replay goes back there only. */
  readonly upstream: string;
  /** Custom tools (their calls are custom_tool_call items) and namespaced functions (their calls carry name and namespace), by upstream name. */
  readonly toolNames: ResponsesToolNames;
  readonly sequence: number;
  readonly started: boolean;
  readonly output: readonly OutputItem[];
  readonly open: OpenItem | null;
  readonly finished: boolean;
  /** The terminal response object once finished (the non-streamed answer). */
  readonly response: Record<string, unknown> | null;
}

export interface ResponsesEncodeStep {
  /** Complete SSE events, in order; may be empty. */
  events: string;
  state: ResponsesEncodeState;
}

export function createResponsesEncodeState(base: ResponsesEncodeState['base'], upstream: string, toolNames: ResponsesToolNames = NO_TOOL_NAMES): ResponsesEncodeState {
  return { base, upstream, toolNames, sequence: 0, started: false, output: [], open: null, finished: false, response: null };
}

/**
 * One neutral part -> the Responses events it stands for. response.created and
 * response.in_progress are held back until the first output (or the finish), so an attempt that
 * fails before any output sends nothing and routing can still fall back. Items open one at a time
 * with output_index in order; a part of another kind closes the open item first, and every closed
 * item is kept for the terminal event's `output` (function calls included).
 */
export function encodeResponsesPart(part: StreamPart, state: ResponsesEncodeState): ResponsesEncodeStep {
  if (state.finished) return { events: '', state };
  const w = writer(state);
  switch (part.type) {
    case 'start':
      return { events: '', state: part.model ? { ...state, base: { ...state.base, model: part.model } } : state };
    case 'text-delta':
      if (part.text === '') break;
      w.ensure('message');
      w.delta(part.text);
      break;
    case 'reasoning-delta':
      if (part.text === '') break;
      w.ensure('reasoning');
      w.delta(part.text);
      break;
    case 'reasoning-signature':
      w.ensure('reasoning');
      w.sign(part.signature);
      w.close();
      break;
    case 'redacted-reasoning':
      // Redacted reasoning has no text to show; it is kept only so the upstream that wrote it can have it back.
      w.ensure('reasoning', true);
      w.sign(part.data, true);
      w.close();
      break;
    case 'tool-call-start':
      w.openCall(part.id, part.name);
      break;
    case 'tool-call-delta':
      if ((w.state.open?.kind !== 'function_call' && w.state.open?.kind !== 'custom_tool_call') || part.argumentsDelta === '') break;
      w.delta(part.argumentsDelta);
      break;
    case 'finish':
      w.finish(part.reason, part.usage);
      break;
  }
  return { events: w.events, state: w.state };
}

/** An error after the first byte, as the stream's terminal event (Codex ignores `error` events but acts on response.failed). */
export function encodeResponsesFailure(error: unknown, state: ResponsesEncodeState): string {
  if (state.finished) return '';
  const w = writer(state);
  w.begin();
  const response = { ...w.state.base, status: 'failed', error: { code: failureCode(error), message: failureMessage(error) }, output: w.state.output };
  w.emit({ type: 'response.failed', response });
  return w.events;
}

/** What a stream that ended is, as one response object: the non-streamed answer. */
export function encodeResponse(parts: StreamPart[], state: ResponsesEncodeState): Record<string, unknown> | null {
  let s = state;
  for (const part of parts) s = encodeResponsesPart(part, s).state;
  return s.response;
}

function writer(initial: ResponsesEncodeState) {
  let state = initial;
  let events = '';
  const emit = (payload: { type: string } & Record<string, unknown>) => {
    events += responsesEvent({ ...payload, sequence_number: state.sequence });
    state = { ...state, sequence: state.sequence + 1 };
  };
  const begin = () => {
    if (state.started) return;
    const response = { ...state.base, status: 'in_progress', output: [] };
    emit({ type: 'response.created', response });
    emit({ type: 'response.in_progress', response });
    state = { ...state, started: true };
  };
  const itemOf = (open: OpenItem, status: 'in_progress' | 'completed'): OutputItem => {
    const part = { type: 'output_text', annotations: [], logprobs: [], text: status === 'completed' ? open.text : '' };
    if (open.kind === 'message') return { id: open.id, type: 'message', status, role: 'assistant', content: status === 'completed' ? [part] : [] };
    const namespace = open.namespace === undefined ? {} : { namespace: open.namespace };
    if (open.kind === 'function_call') return { id: open.id, type: 'function_call', status, arguments: status === 'completed' ? open.text : '', call_id: open.callId!, name: open.name!, ...namespace };
    if (open.kind === 'custom_tool_call') return { id: open.id, type: 'custom_tool_call', status, call_id: open.callId!, name: open.name!, ...namespace, input: status === 'completed' ? customInput(open.text) : '' };
    const done = status === 'completed';
    return {
      id: open.id,
      type: 'reasoning',
      summary: [],
      ...(done && open.text !== '' ? { content: [{ type: 'reasoning_text', text: open.text }] } : {}),
      ...(done && open.signature ? { encrypted_content: sealSignature(state.upstream, open.signature, open.redacted === true, open.text) } : {}),
    };
  };
  const open = (kind: OpenItem['kind'], extra: Partial<OpenItem> = {}) => {
    close();
    begin();
    const index = state.output.length;
    const prefix = kind === 'message' ? 'msg' : kind === 'function_call' ? 'fc' : kind === 'custom_tool_call' ? 'ctc' : 'rs';
    const item: OpenItem = { kind, index, id: `${prefix}_${state.base.id.replace(/^resp_/, '')}_${index}`, text: '', ...extra };
    state = { ...state, open: item };
    emit({ type: 'response.output_item.added', output_index: index, item: itemOf(item, 'in_progress') });
    if (kind === 'message') emit({ type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  };
  const close = () => {
    const item = state.open;
    if (!item) return;
    const at = { item_id: item.id, output_index: item.index };
    if (item.kind === 'message') {
      emit({ type: 'response.output_text.done', ...at, content_index: 0, text: item.text, logprobs: [] });
      emit({ type: 'response.content_part.done', ...at, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: item.text } });
    } else if (item.kind === 'function_call') {
      emit({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.text });
    } else if (item.kind === 'custom_tool_call') {
      // The input is known only once the arguments are whole JSON: one delta with all of it.
      const input = customInput(item.text);
      if (input !== '') emit({ type: 'response.custom_tool_call_input.delta', ...at, delta: input });
      emit({ type: 'response.custom_tool_call_input.done', ...at, input });
    } else if (item.text !== '') {
      emit({ type: 'response.reasoning_text.done', ...at, content_index: 0, text: item.text });
      emit({ type: 'response.content_part.done', ...at, content_index: 0, part: { type: 'reasoning_text', text: item.text } });
    }
    const done = itemOf(item, 'completed');
    emit({ type: 'response.output_item.done', output_index: item.index, item: done });
    state = { ...state, open: null, output: [...state.output, done] };
  };
  return {
    get state() {
      return state;
    },
    get events() {
      return events;
    },
    emit,
    begin,
    close,
    ensure(kind: OpenItem['kind'], fresh = false) {
      if (fresh || state.open?.kind !== kind) open(kind);
    },
    openCall(id: string, upstreamName: string) {
      const qualified = state.toolNames.namespaced.get(upstreamName);
      const names = qualified ? { name: qualified.name, namespace: qualified.namespace } : { name: upstreamName };
      open(state.toolNames.custom.has(upstreamName) ? 'custom_tool_call' : 'function_call', { callId: id, ...names });
    },
    delta(text: string) {
      const item = state.open!;
      state = { ...state, open: { ...item, text: item.text + text } };
      const at = { item_id: item.id, output_index: item.index };
      if (item.kind === 'message') emit({ type: 'response.output_text.delta', ...at, content_index: 0, delta: text, logprobs: [] });
      else if (item.kind === 'function_call') emit({ type: 'response.function_call_arguments.delta', ...at, delta: text });
      else if (item.kind === 'custom_tool_call') return;
      else {
        // The reasoning text is the item's content part 0, opened with its first text as OpenAI's own stream does (the SDKs add deltas to it).
        if (item.text === '') emit({ type: 'response.content_part.added', ...at, content_index: 0, part: { type: 'reasoning_text', text: '' } });
        emit({ type: 'response.reasoning_text.delta', ...at, content_index: 0, delta: text });
      }
    },
    sign(signature: string, redacted = false) {
      state = { ...state, open: { ...state.open!, signature, ...(redacted ? { redacted } : {}) } };
    },
    finish(reason: string, usage: NeutralUsage | null) {
      close();
      begin();
      const cut = reason === 'length' ? 'max_output_tokens' : reason === 'content-filter' ? 'content_filter' : null;
      const response = {
        ...state.base,
        status: cut ? 'incomplete' : 'completed',
        incomplete_details: cut ? { reason: cut } : null,
        output: state.output,
        ...(usage ? { usage: encodeResponsesUsage(usage) } : {}),
      };
      emit({ type: cut ? 'response.incomplete' : 'response.completed', response });
      state = { ...state, finished: true, response };
    },
  };
}

/** A custom tool's free text from the function arguments it was called with; arguments that are not that shape are passed as they are. */
function customInput(argumentsJson: string): string {
  try {
    const parsed = JSON.parse(argumentsJson) as Record<string, unknown>;
    if (parsed && typeof parsed[CUSTOM_TOOL_INPUT] === 'string') return parsed[CUSTOM_TOOL_INPUT] as string;
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return argumentsJson;
}
