/// <reference lib="dom" />
/** Browser calls the islands make: JSON with the error envelope's message, search, click beacons. */

/** A failed call, with the API's error code and message. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** Fetches JSON (same origin, with the session cookie); errors carry the envelope's message. */
export async function requestJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: "same-origin", ...init });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new HttpError(0, "NETWORK_ERROR", "The server could not be reached. Try again.");
  }
  if (res.status === 204) return null as T;
  let body: { error?: { code?: string; message?: string } } | null = null;
  try {
    body = await res.json();
  } catch { /* not JSON */ }
  if (!res.ok) {
    throw new HttpError(
      res.status,
      body?.error?.code ?? `HTTP_${res.status}`,
      body?.error?.message ?? `The request failed (${res.status}).`,
    );
  }
  return body as T;
}

/** A JSON body for requestJson. */
export const jsonBody = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

// The search response's shapes are the browser scripts' (both are browser code).
import type { Highlight, Hit } from "../widget/api.ts";
export type { Highlight, Hit };

export interface SearchData {
  results: Hit[];
  meta: { found: number; page: number; per_page: number };
}

/** GET /api/search with the public key. */
export function searchApi(
  key: string,
  q: string,
  page: number,
  perPage: number,
  signal?: AbortSignal,
): Promise<SearchData> {
  const params = new URLSearchParams({ key, q, page: String(page), per_page: String(perPage) });
  return requestJson<SearchData>(`/api/search?${params}`, { signal, credentials: "omit" });
}

/** Reports a click on a result (POST /api/events); never delays the navigation. */
export function sendClick(key: string, query: string, position: number, url: string) {
  const target = `/api/events?key=${encodeURIComponent(key)}`;
  const body = JSON.stringify({ type: "click", query, position, url });
  if (navigator.sendBeacon?.(target, body)) return;
  fetch(target, { method: "POST", body, keepalive: true, credentials: "omit" }).catch(() => {});
}

/** A result's link: its path under the site's base URL; only http(s) and relative paths. */
export function resultHref(url: string, baseUrl: string): string | null {
  if (!url.startsWith("/") || url.startsWith("//")) return null;
  return baseUrl.replace(/\/$/, "") + url;
}
