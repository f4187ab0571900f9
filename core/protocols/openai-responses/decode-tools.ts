import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { NativeOnly, NeutralTool, NeutralToolChoice } from '../neutral/neutral-request.ts';
import type { ResponsesRequestBody } from './request-schema.ts';
import { flatToolName, type QualifiedToolName, type ResponsesToolNames } from './tool-names.ts';

/** The one parameter a custom tool has as a function elsewhere. */
export const CUSTOM_TOOL_INPUT = 'input';

/** A built-in (hosted) tool of OpenAI's, which only OpenAI runs. */
export interface BuiltInTool {
  /** Its place in the caller's request, `tools[N]`. */
  param: string;
  type: string;
}

export interface DecodedTools {
  tools: NeutralTool[];
  names: ResponsesToolNames;
  toolChoice: NeutralToolChoice;
  /**
   * Built-in tools the request offers but does not force: a translated upstream gets the request
   * without them (the model just cannot call them there), and the answer says they were left out.
   */
  builtIns: BuiltInTool[];
}

type Tool = Record<string, unknown>;

/** A tool as the caller declared it, with its place in the request (`tools[2]`, `input[0].tools[1]`). */
export interface DeclaredTool {
  tool: Tool;
  param: string;
}

/**
 * Every tool the request declares, in order: the top-level `tools`, then the tools of each
 * `additional_tools` input item (OpenAI's AdditionalToolsItemParam, which Codex 0.171.0 declares
 * all its tools in). An additional tool is offered from its item on; the answer comes after every
 * item, so for the answer that is all of them.
 */
export function declaredTools(body: ResponsesRequestBody): DeclaredTool[] {
  const out: DeclaredTool[] = (body.tools ?? []).map((tool, index) => ({ tool: tool as Tool, param: `tools[${index}]` }));
  if (!Array.isArray(body.input)) return out;
  for (const [index, item] of body.input.entries()) {
    const raw = item as Record<string, unknown>;
    if (raw.type !== 'additional_tools') continue;
    if (!Array.isArray(raw.tools)) throw new InvalidRequestError(`input[${index}].tools must be the array of tools the item adds.`, `input[${index}].tools`);
    for (const [position, tool] of raw.tools.entries()) out.push({ tool: tool as Tool, param: `input[${index}].tools[${position}]` });
  }
  return out;
}

/**
 * The Responses tool list (declaredTools) as neutral tools. Function tools stay as they are; custom (freeform)
 * tools become functions of one string; a `namespace` tool's functions become ordinary tools
 * under a flat name (tool-names.ts) that the encoder turns back into name + namespace. Built-in
 * tools are set aside in `builtIns`, or refused (nativeOnly, `tools[N].type`) when tool_choice
 * forces one: leaving out a tool the caller demands would change what the answer is.
 */
export function decodeTools(body: ResponsesRequestBody, nativeOnly: NativeOnly[]): DecodedTools {
  const tools: NeutralTool[] = [];
  const custom = new Set<string>();
  const namespaced = new Map<string, QualifiedToolName>();
  const builtIns: BuiltInTool[] = [];
  const seen = new Map<string, string>();
  const add = (tool: Tool, param: string, qualified?: QualifiedToolName) => {
    if (typeof tool.name !== 'string' || tool.name === '') throw new InvalidRequestError(`${param}.name is required for a ${String(tool.type)} tool.`, `${param}.name`);
    const name = qualified ? flatToolName(qualified) : tool.name;
    const clash = seen.get(name);
    if (clash !== undefined) nativeOnly.push({ param: `${param}.name`, what: `offer two tools under the one name "${name}" (${clash} and ${param})` });
    seen.set(name, param);
    if (qualified) namespaced.set(name, qualified);
    if (tool.type === 'custom') {
      custom.add(name);
      tools.push(customAsFunction(tool, name));
    } else {
      tools.push({ name, ...(typeof tool.description === 'string' && tool.description ? { description: tool.description } : {}), inputSchema: (tool.parameters as Record<string, unknown> | null) ?? { type: 'object', properties: {} } });
    }
  };

  for (const { tool, param } of declaredTools(body)) {
    if (tool?.type === 'function' || tool?.type === 'custom') add(tool, param);
    else if (tool.type === 'namespace') decodeNamespace(tool, param, add, nativeOnly);
    else builtIns.push({ param, type: String(tool?.type) });
  }

  const toolChoice = decodeToolChoice(body.tool_choice, body.parallel_tool_calls !== false, builtIns, nativeOnly);
  // `required` with built-in tools only demands one of them.
  if (toolChoice.type === 'any' && tools.length === 0 && builtIns.length > 0) nativeOnly.push({ param: `${builtIns[0].param}.type`, what: `run OpenAI's built-in tool "${builtIns[0].type}", which tool_choice "required" demands` });
  return { tools, names: { custom, namespaced }, toolChoice, builtIns };
}

function decodeNamespace(tool: Tool, param: string, add: (tool: Tool, param: string, qualified: QualifiedToolName) => void, nativeOnly: NativeOnly[]): void {
  if (typeof tool.name !== 'string' || tool.name === '') throw new InvalidRequestError(`${param}.name is required for a namespace tool.`, `${param}.name`);
  if (!Array.isArray(tool.tools)) throw new InvalidRequestError(`${param}.tools must be the array of function tools in the namespace.`, `${param}.tools`);
  for (const [index, raw] of tool.tools.entries()) {
    const inner = raw as Tool;
    const at = `${param}.tools[${index}]`;
    if (inner?.type !== 'function' && inner?.type !== 'custom') {
      nativeOnly.push({ param: `${at}.type`, what: `run a tool of type "${String(inner?.type)}" inside a namespace` });
      continue;
    }
    add(inner, at, { namespace: tool.name, name: String(inner.name ?? '') });
  }
}

/**
 * tool_choice in neutral terms. A choice naming a namespaced function (`namespace` beside `name`)
 * names its flat name. Forcing a built-in tool cannot be honoured elsewhere: refused naming the
 * tool (`tools[N].type`), or tool_choice itself when the tool is not in the list; `required`
 * with built-ins only is the same demand.
 */
function decodeToolChoice(choice: ResponsesRequestBody['tool_choice'], parallel: boolean, builtIns: BuiltInTool[], nativeOnly: NativeOnly[]): NeutralToolChoice {
  if (choice === undefined || choice === 'auto') return { type: 'auto', parallel };
  if (choice === 'none') return { type: 'none', parallel };
  if (choice === 'required') return { type: 'any', parallel };
  const c = choice as Record<string, unknown>;
  if ((c.type === 'function' || c.type === 'custom') && typeof c.name === 'string') {
    const name = typeof c.namespace === 'string' && c.namespace !== '' ? flatToolName({ namespace: c.namespace, name: c.name }) : c.name;
    return { type: 'tool', name, parallel };
  }
  // allowed_tools narrows the choice to a subset; every upstream can still choose among all the tools.
  if (c.type === 'allowed_tools') return { type: c.mode === 'required' ? 'any' : 'auto', parallel };
  const forced = builtIns.find((tool) => toolFamily(tool.type) === toolFamily(String(c.type)));
  nativeOnly.push(forced ? { param: `${forced.param}.type`, what: `run OpenAI's built-in tool "${forced.type}", which tool_choice forces` } : { param: 'tool_choice.type', what: `force OpenAI's built-in tool "${String(c.type)}"` });
  return { type: 'auto', parallel };
}

/** A built-in tool's kind whatever its version: tool_choice `web_search_preview` forces a `web_search_2025_08_26` tool. */
function toolFamily(type: string): string {
  return type.replace(/_\d{4}_\d{2}_\d{2}$/, '').replace(/_preview$/, '');
}

/**
 * A custom tool as a function of one string: the free text goes in `input`, and the tool's
 * grammar (Codex's apply_patch is Lark) rides in the description, so the model writes what the
 * tool parses.
 */
function customAsFunction(tool: Tool, name: string): NeutralTool {
  const format = tool.format as { type?: unknown; syntax?: unknown; definition?: unknown } | undefined;
  const grammar = format?.type === 'grammar' && typeof format.definition === 'string' ? `\n\nThe input must follow this ${String(format.syntax ?? '')} grammar:\n${format.definition}` : '';
  const description = `${typeof tool.description === 'string' ? tool.description : ''}${grammar}`.trim();
  return {
    name,
    ...(description ? { description } : {}),
    inputSchema: { type: 'object', properties: { [CUSTOM_TOOL_INPUT]: { type: 'string', description: 'The raw input of the tool, as free text.' } }, required: [CUSTOM_TOOL_INPUT] },
  };
}
