/** The edge's side of errors: each code's status and type, and any thrown value as an answer. */
import { BodyError } from "./server/mod.ts";
import {
  DomainError,
  type ErrorCode,
  isLocked,
  isStorageFault,
  storageUnavailable,
} from "../errors.ts";

/**
 * How each error code is answered over HTTP, its status and type: the one table of docs/api.md's
 * errors (the codes themselves are lib/errors.ts `ErrorCode`, which this must match exactly).
 */
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
  // Not in docs/api.md's table: a site with too many re-fetches of named URLs waiting.
  REFETCH_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  // IndexNow's answers, as its protocol names them: 403 key not valid, 422 a URL not on the host
  // or a key off its schema (and a host no site here crawls), 429 too many pings for one host.
  INDEXNOW_KEY_NOT_VALID: { status: 403, type: "permission_error" },
  INDEXNOW_KEY_MALFORMED: { status: 422, type: "invalid_request_error" },
  INDEXNOW_URL_NOT_ON_HOST: { status: 422, type: "invalid_request_error" },
  INDEXNOW_HOST_NOT_CRAWLED: { status: 422, type: "invalid_request_error" },
  INDEXNOW_RATE_LIMIT_EXCEEDED: { status: 429, type: "rate_limit_error" },
  // Not in docs/api.md's table: requests the HTTP server refuses before the app sees them.
  URI_TOO_LONG: { status: 414, type: "invalid_request_error" },
  HEADER_FIELDS_TOO_LARGE: { status: 431, type: "invalid_request_error" },
  INTERNAL_ERROR: { status: 500, type: "api_error" },
  NOT_IMPLEMENTED: { status: 501, type: "invalid_request_error" },
  UPSTREAM_ERROR: { status: 502, type: "upstream_error" },
  SERVICE_UNAVAILABLE: { status: 503, type: "api_error" },
  HTTP_VERSION_NOT_SUPPORTED: { status: 505, type: "invalid_request_error" },
} as const satisfies Record<ErrorCode, { status: number; type: string }>;

/** The HTTP status a refusal is answered with. */
export const statusOf = (err: DomainError): number => ERRORS[err.code].status;

/**
 * The headers a refusal's answer carries: its own, and `Retry-After` when it says when to ask
 * again.
 */
export function errorHeaders(err: DomainError): Record<string, string> {
  const { retryAfter, headers } = err.details;
  if (retryAfter === undefined) return headers ?? {};
  return { ...headers, "Retry-After": String(retryAfter) };
}

/** The inner object of the error envelope (also the `data` of an SSE `error` event). */
export function errorObject(err: DomainError, requestId: string) {
  const body: Record<string, unknown> = {
    code: err.code,
    type: ERRORS[err.code].type,
    status: statusOf(err),
    message: err.message,
    param: err.details.param ?? null,
    request_id: requestId,
  };
  if (err.details.retryAfter !== undefined) body.retry_after = err.details.retryAfter;
  if (err.details.resetsAt !== undefined) body.resets_at = err.details.resetsAt;
  return body;
}

/** A request body the server could not deliver whole (its home is the server, which throws it). */
export { BodyError };

/** Any thrown value as a refusal; unknown failures become INTERNAL_ERROR without details. */
export function asDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof BodyError) {
    const code = err.status === 408
      ? "REQUEST_TIMEOUT"
      : err.status === 413
      ? "PAYLOAD_TOO_LARGE"
      : "INVALID_PARAMETER";
    return new DomainError(code, err.message);
  }
  if (err instanceof URIError) {
    return new DomainError(
      "INVALID_PARAMETER",
      "The request URL is not correctly percent-encoded.",
    );
  }
  if (
    isStorageFault(err) || isLocked(err) ||
    (err instanceof Error && err.name === "TypeError" && /KV|database/i.test(err.message))
  ) {
    return storageUnavailable(err);
  }
  return new DomainError("INTERNAL_ERROR", "Something went wrong on our side.");
}
