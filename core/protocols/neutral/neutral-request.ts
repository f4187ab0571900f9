/** Patchbay's own request model: what every ingress decodes to and every adapter can send. */

/** A prompt-cache breakpoint the caller set (Anthropic's cache_control); other upstreams ignore it. */
export interface CacheControl {
  ttl?: string;
}

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

/**
 * Where a part or tool stands in the caller's request, in the ingress protocol's own terms
 * (`messages[2].content[0].image_url.url`, `tools[0].input_schema`): an upstream that cannot take
 * it refuses it naming that field, whichever protocol the caller speaks.
 */
export type Source = string;

/** `data` is base64 (with `mediaType`), or `url` is a link the upstream fetches. */
export interface ImagePart {
  type: 'image';
  mediaType?: string;
  data?: string;
  url?: string;
  source?: Source;
  cacheControl?: CacheControl;
}

/** A file sent inline: a PDF or another type (`data` base64), or plain text. */
export interface DocumentPart {
  type: 'document';
  mediaType: string;
  data: string;
  title?: string;
  source?: Source;
}

/** Audio input (OpenAI's input_audio): `format` as the caller named it (wav, mp3), `data` base64. */
export interface AudioPart {
  type: 'audio';
  format: string;
  data: string;
  source?: Source;
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
  source?: Source;
}

/**
 * Reasoning with its signature, or a signature alone (empty `text`): Gemini signs answer parts and
 * function calls too, and such a signature stands as a signed empty reasoning part just before
 * the part it signed, the form an Anthropic client keeps and replays (a thinking block).
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** The upstream's proof that it wrote this reasoning; replayed unchanged, never invented. */
  signature?: string;
  /**
   * The provider that made the signature, as Patchbay's envelope names it (signature-envelope.ts).
   * Absent: a signature Patchbay did not seal, the caller's own protocol's upstream's, which only
   * pass-through gives back. An adapter replays a signature only when this names its provider.
   */
  signedBy?: string;
}

/** Encrypted reasoning without text (Anthropic's redacted_thinking, OpenAI's encrypted_content). */
export interface RedactedReasoningPart {
  type: 'redacted-reasoning';
  data: string;
  /** As ReasoningPart.signedBy: the provider that made `data`, when Patchbay sealed it. */
  signedBy?: string;
}

export type MessagePart = TextPart | ImagePart | DocumentPart | AudioPart | ToolCallPart | ToolResultPart | ReasoningPart | RedactedReasoningPart;

export interface NeutralMessage {
  /** `system` mid-conversation (an instruction at that point of the conversation); the top-level system prompt is NeutralRequest.system. */
  role: 'user' | 'assistant' | 'system';
  parts: MessagePart[];
  /** The message in the caller's request (`messages[3]`), for errors about it as a whole. */
  source?: Source;
}

export interface NeutralTool {
  name: string;
  description?: string;
  /** JSON schema of the tool's input object; undefined when the caller gave none (a tool without arguments). */
  inputSchema?: Record<string, unknown>;
  /** The fields of the caller's request holding the name and the schema, for errors. */
  source?: { name: Source; schema: Source };
}

/** The answer must be one JSON object, validating against `schema` when one is given. */
export interface NeutralResponseFormat {
  type: 'json';
  schema?: Record<string, unknown>;
  description?: string;
  source: Source;
}

/** Something in the request only the caller's own protocol's upstreams can honour, with the field that asks for it. */
export interface NativeOnly {
  param: string;
  what: string;
}

export type NeutralToolChoice = { type: 'auto' | 'any' | 'none'; parallel: boolean } | { type: 'tool'; name: string; parallel: boolean };

export interface NeutralRequest {
  model: string;
  system: TextPart[];
  messages: NeutralMessage[];
  tools: NeutralTool[];
  toolChoice?: NeutralToolChoice;
  maxTokens?: number;
  /** The caller's name for maxTokens (max_tokens, max_completion_tokens, max_output_tokens), for what says it was changed. */
  maxTokensSource?: Source;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences: string[];
  /** Extended thinking with a token budget; undefined = off. */
  thinking?: { budgetTokens: number };
  user?: string;
  /** Answers wanted (OpenAI's n); undefined = 1. Parts of answer i carry `choice: i`. */
  choices?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseFormat?: NeutralResponseFormat;
}
