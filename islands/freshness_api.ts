/// <reference lib="dom" />
/**
 * The dashboard's calls for an index that follows the site: re-fetch named URLs now, ask why a
 * URL is or is not searchable, and follow one URL's status until a re-fetch has reached it.
 * Failures carry the envelope's `param` and `retry_after` (HttpError), so a message can name the
 * line or say when to try again.
 */
import { HttpError, jsonBody, requestJson } from "./api.ts";
import { adminPath } from "./ui.tsx";
import type { RefetchJson, UrlStatusJson } from "../lib/wire_types.ts";

/** Said on the page after a re-fetch is queued, so the crawl section shows its job. */
export const REFETCH_QUEUED_EVENT = "sitesearch:refetch-queued";

/** The most URLs one re-fetch names (the API's bound). */
export const MAX_REFETCH = 1_000;

/** Queues `urls` (paths or absolute URLs of the site) to be fetched now, and says so on the page. */
export async function refetch(siteId: string, urls: string[]): Promise<RefetchJson> {
  const r = await requestJson<RefetchJson>(
    adminPath(siteId, "/recrawl"),
    jsonBody("POST", { urls }),
  );
  dispatchEvent(new CustomEvent(REFETCH_QUEUED_EVENT));
  return r;
}

/** Why `url` is or is not searchable. */
export const readUrlStatus = (siteId: string, url: string) =>
  requestJson<UrlStatusJson>(adminPath(siteId, `/urls/status?url=${encodeURIComponent(url)}`));

/** "Queued N pages; …": what a 202 means to the owner. */
export const queuedWords = (n: number) =>
  `Queued ${n} ${n === 1 ? "page" : "pages"}; changes show in search within seconds.`;

/** When to try again, from a 429's retry_after, in words. */
export function retryWords(seconds: number | null): string {
  if (seconds === null) return "Try again in a minute.";
  if (seconds < 90) return `Try again in ${Math.max(1, Math.ceil(seconds))} seconds.`;
  return `Try again in ${Math.ceil(seconds / 60)} minutes.`;
}

/** A failed re-fetch in words: too many waiting says when to try again. */
export const refetchFailure = (e: unknown) =>
  e instanceof HttpError && e.code === "REFETCH_RATE_LIMIT_EXCEEDED"
    ? `Too many re-fetches are waiting for this site. ${retryWords(e.retryAfter)}`
    : e instanceof HttpError
    ? e.message
    : "Something went wrong. Try again.";

const FOLLOW_MS = 2_000;
const FOLLOW_TRIES = 5;

/**
 * Re-reads `url`'s status every few seconds until a fetch newer than `before` shows (or a few
 * tries pass), and returns the last status read.
 */
export async function followStatus(
  o: { siteId: string; url: string; before: string | null },
): Promise<UrlStatusJson> {
  let last: UrlStatusJson | null = null;
  for (let i = 0; i < FOLLOW_TRIES; i++) {
    await new Promise((r) => setTimeout(r, FOLLOW_MS));
    last = await readUrlStatus(o.siteId, o.url);
    if (last.lastFetched && last.lastFetched !== o.before) break;
  }
  return last!;
}
