/**
 * The Anthropic Messages API (version 2023-06-01) as far as Patchbay writes and reads it.
 * Request types are exact: Patchbay builds those bodies. Response and event types are loose
 * (optional fields, plain strings) because they describe untrusted JSON that may grow new
 * block, delta and event types at any time.
 */

export interface CacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export interface TextBlockParam {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export interface ImageBlockParam {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
  cache_control?: CacheControl;
}

export interface DocumentBlockParam {
  type: 'document';
  source: { type: 'base64'; media_type: 'application/pdf'; data: string };
  cache_control?: CacheControl;
}

export interface ToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | TextBlockParam[];
  is_error?: boolean;
}

/** Replayed extended thinking, exactly as Anthropic sent it (its signature checks the text). */
export interface ThinkingBlockParam {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlockParam {
  type: 'redacted_thinking';
  data: string;
}

export type ContentBlockParam = TextBlockParam | ImageBlockParam | DocumentBlockParam | ToolUseBlockParam | ToolResultBlockParam | ThinkingBlockParam | RedactedThinkingBlockParam;

export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | ContentBlockParam[];
}

export interface ToolParam {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type ToolChoiceParam =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlockParam[];
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
  metadata?: { user_id: string };
  thinking?: { type: 'enabled'; budget_tokens: number };
  context_management?: unknown;
  stream?: boolean;
}

/** Counts as Anthropic reports them (the protocol module's type: pass-through reads them too). */
export type { AnthropicUsage } from '../../protocols/anthropic-messages/map-usage.ts';
import type { AnthropicUsage } from '../../protocols/anthropic-messages/map-usage.ts';

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  thinking?: string;
  signature?: string;
  /** redacted_thinking's encrypted reasoning. */
  data?: string;
}

export interface MessageResponse {
  id: string;
  type?: string;
  role?: string;
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}

export interface StreamEventData {
  type: string;
  message?: MessageResponse;
  index?: number;
  content_block?: ContentBlock;
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; signature?: string; stop_reason?: string | null; stop_sequence?: string | null };
  usage?: AnthropicUsage;
  error?: ErrorDetail;
}

export interface ErrorDetail {
  type?: string;
  message?: string;
  details?: { error_code?: string } | null;
}

/** `{"type":"error","error":{...},"request_id":"req_..."}` */
export interface ErrorResponse {
  type?: string;
  error?: ErrorDetail;
  request_id?: string;
}
