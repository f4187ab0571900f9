/** The management API refused a call: its HTTP status and the message of its error body. */
export class ManagementApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'ManagementApiError';
    this.status = status;
  }
}

export interface ManagementCall {
  method: string;
  /** The path under /api, e.g. "/keys". */
  path: string;
  /** Sent as JSON when given. */
  body?: unknown;
  timeoutMs: number;
}

/**
 * One call to a running Patchbay's /api with the admin token (the CLI, the desktop app). Returns the
 * answer's text; a refusal throws ManagementApiError carrying the error body's message (or the raw
 * text when the body is not Patchbay's JSON error); a network failure throws fetch's own error, so a
 * caller can tell "nothing answers" from "it answered no".
 */
export async function callManagementApi(baseUrl: string, adminToken: string, call: ManagementCall): Promise<string> {
  const response = await fetch(`${baseUrl}/api${call.path}`, {
    method: call.method,
    headers: { authorization: `Bearer ${adminToken}`, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
    signal: AbortSignal.timeout(call.timeoutMs),
  });
  const text = await response.text();
  if (!response.ok) throw new ManagementApiError(response.status, errorMessageOf(text));
  return text;
}

function errorMessageOf(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' ? message : text;
  } catch {
    return text;
  }
}
