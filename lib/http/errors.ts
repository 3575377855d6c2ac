import { BodyError } from "./server/mod.ts";

/** Every error code the API answers, with its status and type: the one table of docs/api.md's errors. */
export const ERRORS = {
  INVALID_PARAMETER: { status: 400, type: "invalid_request_error" },
  INVALID_JSON: { status: 400, type: "invalid_request_error" },
  MISSING_API_KEY: { status: 401, type: "authentication_error" },
  INVALID_API_KEY: { status: 401, type: "authentication_error" },
  ORIGIN_NOT_ALLOWED: { status: 403, type: "permission_error" },
  SUMMARIES_DISABLED: { status: 403, type: "permission_error" },
  FOLLOWUP_REQUIRES_PAID_PLAN: { status: 403, type: "permission_error" },
  PLAN_FEATURE_UNAVAILABLE: { status: 403, type: "permission_error" },
  // Not in docs/api.md's table: a site admin key calling an operator-only endpoint or field.
  OPERATOR_ONLY: { status: 403, type: "permission_error" },
  // Not in docs/api.md's table: a follow-up on a paid site that turned follow-ups off.
  FOLLOWUPS_DISABLED: { status: 403, type: "permission_error" },
  NOT_FOUND: { status: 404, type: "not_found_error" },
  CONVERSATION_NOT_FOUND: { status: 404, type: "not_found_error" },
  METHOD_NOT_ALLOWED: { status: 405, type: "invalid_request_error" },
  // Not in docs/api.md's table: a request body that did not arrive within the server's deadline.
  REQUEST_TIMEOUT: { status: 408, type: "invalid_request_error" },
  CONVERSATION_TURN_LIMIT_REACHED: { status: 409, type: "invalid_request_error" },
  CRAWL_IN_PROGRESS: { status: 409, type: "invalid_request_error" },
  PAYLOAD_TOO_LARGE: { status: 413, type: "invalid_request_error" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, type: "invalid_request_error" },
  SEARCH_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  MONTHLY_SEARCH_QUOTA_EXCEEDED: { status: 429, type: "rate_limit_error" },
  AI_CREDITS_EXHAUSTED: { status: 429, type: "rate_limit_error" },
  SUMMARY_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  // Not in docs/api.md's table: too many click events from one client IP per minute.
  EVENT_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  PREVIEW_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  SIGN_IN_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  // Not in docs/api.md's table: requests the HTTP server refuses before the app sees them.
  URI_TOO_LONG: { status: 414, type: "invalid_request_error" },
  HEADER_FIELDS_TOO_LARGE: { status: 431, type: "invalid_request_error" },
  INTERNAL_ERROR: { status: 500, type: "api_error" },
  NOT_IMPLEMENTED: { status: 501, type: "invalid_request_error" },
  UPSTREAM_ERROR: { status: 502, type: "upstream_error" },
  SERVICE_UNAVAILABLE: { status: 503, type: "api_error" },
  HTTP_VERSION_NOT_SUPPORTED: { status: 505, type: "invalid_request_error" },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Extra fields an error may carry into its envelope. */
export interface ErrorExtras {
  param?: string | null;
  retryAfter?: number;
  resetsAt?: string;
  headers?: Record<string, string>;
}

/** A typed API error; thrown anywhere, turned into the envelope in one place (toErrorBody). */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ErrorExtras;
  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
    super(message);
    this.code = code;
    this.status = ERRORS[code].status;
    this.extras = extras;
  }
}

/** The inner object of the error envelope (also the `data` of an SSE `error` event). */
export function errorObject(err: ApiError, requestId: string) {
  const body: Record<string, unknown> = {
    code: err.code,
    type: ERRORS[err.code].type,
    status: err.status,
    message: err.message,
    param: err.extras.param ?? null,
    request_id: requestId,
  };
  if (err.extras.retryAfter !== undefined) body.retry_after = err.extras.retryAfter;
  if (err.extras.resetsAt !== undefined) body.resets_at = err.extras.resetsAt;
  return body;
}

/** A request body the server could not deliver whole (its home is the server, which throws it). */
export { BodyError };

/** Any thrown value as an ApiError; unknown failures become INTERNAL_ERROR without details. */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof BodyError) {
    const code = err.status === 408
      ? "REQUEST_TIMEOUT"
      : err.status === 413
      ? "PAYLOAD_TOO_LARGE"
      : "INVALID_PARAMETER";
    return new ApiError(code, err.message);
  }
  if (err instanceof URIError) {
    return new ApiError("INVALID_PARAMETER", "The request URL is not correctly percent-encoded.");
  }
  if (
    isStorageFault(err) || isLocked(err) ||
    (err instanceof Error && err.name === "TypeError" && /KV|database/i.test(err.message))
  ) {
    return storageUnavailable(err);
  }
  return new ApiError("INTERNAL_ERROR", "Something went wrong on our side.");
}

/** 503 for a write that kept losing races to other writers; the client may simply retry. */
export function busy(message: string): ApiError {
  return new ApiError("SERVICE_UNAVAILABLE", message, {
    retryAfter: 1,
    headers: { "Retry-After": "1" },
  });
}

/** SQLite's busy answer when two processes write one local KV file at once: worth a retry. */
export function isLocked(err: unknown): boolean {
  return err instanceof Error && /database is locked|database table is locked/i.test(err.message);
}

/** Failures of the store or the machine, not of the request: the client should retry later. */
export function isStorageFault(err: unknown): boolean {
  return err instanceof Error &&
    /disk I\/O error|readonly database|read-only|unable to open database|database disk image|disk is full|too many open files|os error (5|24|28|30)\b/i
      .test(err.message);
}

/** The 503 for a store that failed; the error handler logs its cause loudly. */
export function storageUnavailable(cause: unknown): ApiError {
  const err = new ApiError("SERVICE_UNAVAILABLE", "Storage is unavailable. Retry shortly.", {
    retryAfter: 5,
    headers: { "Retry-After": "5" },
  });
  err.cause = cause;
  return err;
}

/** A public key that opens no site (unknown, rotated out, or from another site). */
export function invalidSearchKey(): ApiError {
  return new ApiError("INVALID_API_KEY", "The search key is not valid.");
}

/** Shorthand for the most common error: a bad parameter named by `param`. */
export function invalid(param: string, message: string): ApiError {
  return new ApiError("INVALID_PARAMETER", message, { param });
}
