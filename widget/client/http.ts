/// <reference lib="dom" />
/** Requests from the browser (widget.js, results.js, the islands): one error class for them all. */
import type { ErrorJson } from "../../lib/wire_types.ts";

/** A failed call: `status` 0 when the network failed; `code` is the API's error code. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message = code,
    /** The envelope's `param` (the field at fault) and `retry_after` (seconds), when given. */
    readonly param: string | null = null,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** True for the rejection of an aborted request. */
export const isAbort = (e: unknown) => e instanceof DOMException && e.name === "AbortError";

/** `fetch` whose network failures become ApiFailure(0); aborts stay AbortErrors. */
export async function call(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    if (isAbort(e)) throw e;
    throw new ApiFailure(0, "NETWORK_ERROR", "The server could not be reached. Try again.");
  }
}

/** A failed response as an ApiFailure carrying the error envelope's code and message. */
export async function failureOf(res: Response): Promise<ApiFailure> {
  const body = await res.json().catch(() => null) as { error?: Partial<ErrorJson> } | null;
  const err = body?.error;
  return new ApiFailure(
    res.status,
    err?.code ?? `HTTP_${res.status}`,
    err?.message ?? `The request failed (${res.status}).`,
    err?.param ?? null,
    typeof err?.retry_after === "number" ? err.retry_after : null,
  );
}

/** A response's JSON (null for 204), or the ApiFailure it carries. */
export async function bodyJson<T>(res: Response): Promise<T> {
  if (!res.ok) throw await failureOf(res);
  if (res.status === 204) {
    await res.body?.cancel();
    return null as T;
  }
  try {
    return await res.json() as T;
  } catch {
    throw new ApiFailure(res.status, "BAD_RESPONSE", "The server's answer could not be read.");
  }
}

/** Fetches JSON (same origin, with the session cookie unless `init` says otherwise). */
export async function requestJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  return bodyJson<T>(await call(path, { credentials: "same-origin", ...init }));
}

/** A JSON body for requestJson. */
export const jsonBody = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});
