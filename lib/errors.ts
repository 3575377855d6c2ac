/**
 * The service's refusals as every part of it throws them: a code of the one list below, a
 * message for the caller, and what it may need besides. Nothing here knows HTTP: how each code
 * is answered (status, type, the envelope) is the edge's table, lib/http/errors.ts `ERRORS`,
 * which the type checker holds to exactly these codes.
 */

/** Every error code the service answers with (docs/api.md's table of errors). */
export type ErrorCode =
  | "INVALID_PARAMETER"
  | "INVALID_JSON"
  | "MISSING_API_KEY"
  | "INVALID_API_KEY"
  | "ORIGIN_NOT_ALLOWED"
  | "SUMMARIES_DISABLED"
  | "FOLLOWUP_REQUIRES_PAID_PLAN"
  | "PLAN_FEATURE_UNAVAILABLE"
  | "OPERATOR_ONLY"
  | "FOLLOWUPS_DISABLED"
  | "NOT_FOUND"
  | "CONVERSATION_NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "REQUEST_TIMEOUT"
  | "CONVERSATION_TURN_LIMIT_REACHED"
  | "CRAWL_IN_PROGRESS"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "SEARCH_RATE_LIMIT_EXCEEDED"
  | "MONTHLY_SEARCH_QUOTA_EXCEEDED"
  | "AI_CREDITS_EXHAUSTED"
  | "SUMMARY_RATE_LIMIT_EXCEEDED"
  | "EVENT_RATE_LIMIT_EXCEEDED"
  | "PREVIEW_RATE_LIMIT_EXCEEDED"
  | "SIGN_IN_RATE_LIMIT_EXCEEDED"
  | "REFETCH_RATE_LIMIT_EXCEEDED"
  // IndexNow pings (POST|GET /indexnow), answered with the statuses the protocol names.
  | "INDEXNOW_KEY_NOT_VALID"
  | "INDEXNOW_KEY_MALFORMED"
  | "INDEXNOW_URL_NOT_ON_HOST"
  | "INDEXNOW_HOST_NOT_CRAWLED"
  | "INDEXNOW_RATE_LIMIT_EXCEEDED"
  | "URI_TOO_LONG"
  | "HEADER_FIELDS_TOO_LARGE"
  | "INTERNAL_ERROR"
  | "NOT_IMPLEMENTED"
  | "UPSTREAM_ERROR"
  | "SERVICE_UNAVAILABLE"
  | "HTTP_VERSION_NOT_SUPPORTED";

/** What a refusal may carry besides its code and message. */
export interface ErrorDetails {
  /** The parameter or field at fault. */
  param?: string | null;
  /** Seconds after which asking again may succeed. */
  retryAfter?: number;
  /** When a used-up allowance comes back (ISO 8601). */
  resetsAt?: string;
  /** Headers the answer carries with the refusal (a refused search's RateLimit headers). */
  headers?: Record<string, string>;
}

/** A refusal: thrown anywhere, answered in one place at the edge. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** The most common refusal: a bad parameter named by `param`. */
export function invalid(param: string, message: string): DomainError {
  return new DomainError("INVALID_PARAMETER", message, { param });
}

/** A public key that opens no site (unknown, rotated out, or from another site). */
export function invalidSearchKey(): DomainError {
  return new DomainError("INVALID_API_KEY", "The search key is not valid.");
}

/** A write that kept losing races to other writers; the caller may simply retry. */
export function busy(message: string): DomainError {
  return new DomainError("SERVICE_UNAVAILABLE", message, { retryAfter: 1 });
}

/** A store that failed (its cause kept, for the operators' log): retry later. */
export function storageUnavailable(cause: unknown): DomainError {
  const err = new DomainError("SERVICE_UNAVAILABLE", "Storage is unavailable. Retry shortly.", {
    retryAfter: 5,
  });
  err.cause = cause;
  return err;
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
