/**
 * When searches come: work that holds the event loop long (a thorough collection, a
 * compaction, a read-ahead, a restart's reopening of indexes) waits until no search came for a
 * moment. A request counts from when it arrives (main.ts tells it from the HTTP server's
 * accept): most requests are searches, and which one is only shows once its head is parsed. A
 * search that waited for that met the restart's background work at every turn of the event
 * loop (7-18 ms each): 40-140 ms before its route started, against 1-18 once counted early.
 */

let searchedAt = -Infinity;

/** No search for this long: work that holds the event loop now holds no one (a visitor types faster). */
export const SEARCH_QUIET_MS = 250;

/** Notes a search being answered, or a request on its way. */
export function noteSearch() {
  searchedAt = performance.now();
}

/** Whether no search came for `quietMs`. */
export const searchesPaused = (quietMs = SEARCH_QUIET_MS) =>
  performance.now() - searchedAt >= quietMs;

/** Resolves once no search came for `quietMs` (looked at every `quietMs`). */
export async function searchesPause(quietMs = SEARCH_QUIET_MS): Promise<void> {
  while (!searchesPaused(quietMs)) await new Promise((r) => setTimeout(r, quietMs));
}
