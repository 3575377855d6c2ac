/**
 * When searches come. Background work that holds the event loop long (a save's compaction, a
 * read-ahead, the warm-up, a restart's reopening of indexes) waits until no search came for a
 * moment and no request arrived (main.ts tells it from the HTTP server's accept): most requests
 * are searches, and which one is only shows once its head is parsed. A search that waited for
 * that met the restart's background work at every turn of the event loop (7-18 ms each): 40-140
 * ms before its route started, against 1-18 once counted on arrival. What a request does for
 * itself (an upsert's compaction, a thorough collection before it answers) looks at searches
 * only: its own arrival must not hold it back.
 */
import { steadyClock } from "../clock.ts";

let searchedAt = -Infinity;
let arrivedAt = -Infinity;

/** Nothing for this long: work that holds the event loop now holds no one (a visitor types faster). */
export const SEARCH_QUIET_MS = 250;

/** Notes a search being answered. */
export function noteSearch() {
  searchedAt = steadyClock();
}

/** Notes a request on its way, before its route is known (main.ts, from the HTTP server). */
export function noteArrival() {
  arrivedAt = steadyClock();
}

/**
 * Whether no search came for `quietMs`: what a request's own work looks at (an upsert's
 * compaction), which its own arrival must not hold back.
 */
export const searchesPaused = (quietMs = SEARCH_QUIET_MS) =>
  performance.now() - searchedAt >= quietMs;

/** Whether no search came and no request arrived for `quietMs`: background work may run. */
export const quiet = (quietMs = SEARCH_QUIET_MS) =>
  searchesPaused(quietMs) && performance.now() - arrivedAt >= quietMs;

/** Resolves once it is `quiet` (looked at every `quietMs`). */
export async function quietSpell(quietMs = SEARCH_QUIET_MS): Promise<void> {
  while (!quiet(quietMs)) await new Promise((r) => setTimeout(r, quietMs));
}
