/**
 * Every error Patchbay returns to a client is one of these classes. They carry the HTTP status and
 * the OpenAI error fields; `render-error.ts` turns them into the wire shape in one place.
 */
export interface ErrorFields {
  status: number;
  type: string;
  code?: string | null;
  param?: string | null;
  /** Extra members of the `error` object (e.g. `provider`, `attempts`). */
  extra?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
}

export class PatchbayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(message: string, fields: ErrorFields) {
    super(message);
    this.name = new.target.name;
    this.status = fields.status;
    this.type = fields.type;
    this.code = fields.code ?? null;
    this.param = fields.param ?? null;
    this.extra = fields.extra;
    this.headers = fields.headers;
  }

  toBody(): { error: Record<string, unknown> } {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code, ...this.extra },
    };
  }
}

/** 400: the client sent something Patchbay cannot accept; `param` names the field. */
export class InvalidRequestError extends PatchbayError {
  constructor(message: string, param: string | null = null, code: string | null = null, status = 400) {
    super(message, { status, type: 'invalid_request_error', param, code });
  }
}

/**
 * 400 context_length_exceeded: the prompt (with the output asked for) fits no candidate's window.
 * The counts travel with it, so each ingress can say it in its own words (Anthropic's
 * "prompt is too long: N tokens > M maximum", which Claude Code answers by compacting).
 */
export class ContextLengthError extends InvalidRequestError {
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly contextWindow: number;

  constructor(message: string, param: string, counts: { promptTokens: number; outputTokens: number; contextWindow: number }) {
    super(message, param, 'context_length_exceeded');
    this.promptTokens = counts.promptTokens;
    this.outputTokens = counts.outputTokens;
    this.contextWindow = counts.contextWindow;
  }
}

/** 401: missing, unknown, revoked or expired Patchbay key. */
export class AuthenticationError extends PatchbayError {
  constructor(message: string) {
    super(message, { status: 401, type: 'invalid_request_error', code: 'invalid_api_key' });
  }
}

/** 403: the key may not use this model, or the request came from a refused origin. */
export class PermissionDeniedError extends PatchbayError {
  constructor(message: string, code: string, param: string | null = null) {
    super(message, { status: 403, type: 'permission_error', code, param });
  }
}

/** 404 model_not_found. */
export class ModelNotFoundError extends PatchbayError {
  constructor(message: string, param = 'model') {
    super(message, { status: 404, type: 'invalid_request_error', code: 'model_not_found', param });
  }
}

/** 429 from Patchbay's own limits (rate limits and caps). */
export class RateLimitError extends PatchbayError {
  constructor(message: string, code: string, retryAfterSeconds?: number, headers: Record<string, string> = {}) {
    super(message, {
      status: 429,
      type: code === 'insufficient_quota' ? 'insufficient_quota' : 'rate_limit_error',
      code,
      headers: retryAfterSeconds === undefined ? headers : { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}
