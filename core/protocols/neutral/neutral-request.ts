/** Patchbay's own request model: what every ingress decodes to and every adapter can send. */

export interface TextPart {
  type: 'text';
  text: string;
}

/** `data` is base64 (with `mediaType`), or `url` is a link the upstream fetches. */
export interface ImagePart {
  type: 'image';
  mediaType?: string;
  data?: string;
  url?: string;
}

/** A PDF (base64) or plain-text document. */
export interface DocumentPart {
  type: 'document';
  mediaType: string;
  data: string;
  title?: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  content: (TextPart | ImagePart)[];
  isError: boolean;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** The upstream's proof that it wrote this reasoning; replayed unchanged, never invented. */
  signature?: string;
}

export interface RedactedReasoningPart {
  type: 'redacted-reasoning';
  data: string;
}

export type MessagePart = TextPart | ImagePart | DocumentPart | ToolCallPart | ToolResultPart | ReasoningPart | RedactedReasoningPart;

export interface NeutralMessage {
  /** `system` mid-conversation (an instruction at that point of the conversation); the top-level system prompt is NeutralRequest.system. */
  role: 'user' | 'assistant' | 'system';
  parts: MessagePart[];
}

export interface NeutralTool {
  name: string;
  description?: string;
  /** JSON schema of the tool's input object. */
  inputSchema: Record<string, unknown>;
}

export type NeutralToolChoice = { type: 'auto' | 'any' | 'none'; parallel: boolean } | { type: 'tool'; name: string; parallel: boolean };

export interface NeutralRequest {
  model: string;
  system: TextPart[];
  messages: NeutralMessage[];
  tools: NeutralTool[];
  toolChoice?: NeutralToolChoice;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences: string[];
  /** Extended thinking with a token budget; undefined = off. */
  thinking?: { budgetTokens: number };
  user?: string;
}
