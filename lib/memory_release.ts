/**
 * Where the indexes say that a large build, catch-up, compaction or eviction dropped memory.
 * By default nothing happens: V8 frees it at its next collection. A host that may force
 * collections and trim the allocator (lib/platform, opt-in) plugs in here at start.
 */

/** What gives memory back: `now` before the request that dropped it is answered, `soon` after. */
export interface MemoryRelease {
  now(): Promise<void>;
  soon(): void;
}

const NOTHING: MemoryRelease = { now: () => Promise.resolve(), soon: () => {} };
let current = NOTHING;

/** Sets how memory is given back, for the whole process (main.ts, once). */
export function useMemoryRelease(release: MemoryRelease | null) {
  current = release ?? NOTHING;
}

/** Frees what was dropped, awaited before the request that dropped it is answered. */
export const releaseNow = (): Promise<void> => current.now();

/** Frees what was dropped, once the current request is answered. */
export const releaseSoon = (): void => current.soon();

/** Whether dropped memory is freed when said (a host plugged in), not at V8's next collection. */
export const releasesMemory = (): boolean => current !== NOTHING;
