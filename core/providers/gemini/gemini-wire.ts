/**
 * The parts of the Generative Language API v1beta wire format (generateContent, its SSE stream,
 * batchEmbedContents, errors) that the adapter writes or reads. Field names are the lowerCamelCase
 * proto3 JSON names Google answers with.
 */

export interface GeminiFunctionCall {
  name: string;
  args?: Record<string, unknown>;
  /** Optional, and usually absent on the Gemini API. */
  id?: string;
}

export interface GeminiPart {
  text?: string;
  /** A thought summary, not answer text. */
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { fileUri: string; mimeType?: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The OpenAPI 3.0 subset Gemini accepts as `functionDeclarations[].parameters`. */
export interface GeminiSchema {
  type?: 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT';
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  items?: GeminiSchema;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  anyOf?: GeminiSchema[];
  minItems?: string;
  maxItems?: string;
  minLength?: string;
  maxLength?: string;
  minProperties?: string;
  maxProperties?: string;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  example?: unknown;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: GeminiSchema;
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  candidateCount?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  /** Gemini 2.5+: a reasoning budget, and whether to return thought summaries (parts with `thought: true`). */
  thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean };
}

export interface GeminiRequest {
  systemInstruction?: { parts: { text: string }[] };
  contents: GeminiContent[];
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
}

/** One generateContent answer, and equally one SSE event of streamGenerateContent. */
export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
  /** Present when the stream fails after the 200 (js-genai checks every event for it). */
  error?: GeminiErrorStatus;
}

/** google.rpc.Status as JSON: the body of every Gemini error. */
export interface GeminiErrorStatus {
  code?: number;
  message?: string;
  status?: string;
  details?: Record<string, unknown>[];
}

export interface GeminiEmbedRequest {
  model: string;
  content: { parts: { text: string }[] };
  outputDimensionality?: number;
}

export interface GeminiBatchEmbedResponse {
  embeddings?: { values?: number[] }[];
}
