/// <reference lib="dom" />
/** The islands' side of the one browser client (widget/client/), under the names panels import. */
import { type Api, api } from "../widget/client/search.ts";

export { ApiFailure as HttpError, jsonBody, requestJson } from "../widget/client/http.ts";
export type { Highlight, SearchHit as Hit } from "../lib/wire_types.ts";

const clients = new Map<string, Api>();

/** The public API client for `key`, same origin, one per key for the page's life (its cache). */
export function publicApi(key: string): Api {
  let client = clients.get(key);
  if (!client) clients.set(key, client = api(location.origin, key));
  return client;
}

/** A result's link: its path under the site's base URL; only site-relative paths. */
export function resultHref(url: string, baseUrl: string): string | null {
  if (!url.startsWith("/") || url.startsWith("//")) return null;
  return baseUrl.replace(/\/$/, "") + url;
}
