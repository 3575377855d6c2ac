/**
 * When searches come: work that holds the event loop long (a thorough collection, a
 * compaction, a read-ahead) waits until no search came for a moment.
 */

let searchedAt = -Infinity;

/** No search for this long: work that holds the event loop now holds no one (a visitor types faster). */
export const SEARCH_QUIET_MS = 250;

/** Notes a search being answered. */
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
