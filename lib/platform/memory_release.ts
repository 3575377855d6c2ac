/**
 * Memory given back sooner than V8 and glibc would (opt-in, PLATFORM_TUNING): forced
 * collections (`--expose-gc`) after large drops, and glibc's `malloc_trim` (`--allow-ffi`).
 *
 * An evicted index's buffers go back to malloc, which keeps the pages. Measured under a
 * 256 MB budget with 200 sites, the heap and buffers that stayed live were ~270 MB, yet RSS
 * was ~700 MB, and `malloc_trim` gave nearly all of the difference back.
 *
 * Trimming works only on Linux with glibc and where the process may use FFI (`--allow-ffi`,
 * which `deno task start:tuned` grants); collections only where V8's gc is exposed. Elsewhere
 * there is nothing to call, and every function here does nothing.
 */

import { libc } from "./libc.ts";
import { nextTurn } from "../slices.ts";
import { SEARCH_QUIET_MS, searchesPaused } from "../search/mod.ts";
import type { MemoryRelease } from "../memory_release.ts";

type Trim = () => void;

let opened: Trim | null | undefined;

/** glibc's M_MMAP_THRESHOLD (mallopt), and the size it is fixed at: its own starting value. */
const M_MMAP_THRESHOLD = -3;
const MMAP_THRESHOLD_BYTES = 128 << 10;

/**
 * `malloc_trim(0)` when it can be called here, else null. Opened once, and then malloc's
 * mmap threshold is fixed: glibc raises it to the largest block freed so far (up to 32 MB), so
 * after the first freed snapshot or request body every large buffer came from the main heap,
 * which keeps freed pages until a trim; fixed, a buffer over 128 KB is its own mapping, given
 * back to the system when it is freed (RSS right after a 2,000-page upsert: 165 → 140 MB).
 */
export function mallocTrim(): Trim | null {
  if (opened !== undefined) return opened;
  const c = libc();
  c?.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
  opened = c ? () => void c.malloc_trim(0n) : null;
  return opened;
}

/**
 * Trims once indexes have stopped loading, building and going (`churn()`, a count of those,
 * unchanged for a tick of `everyMs`), and once more a tick later: V8 frees a dropped index's
 * buffers at its next collection, after the eviction. Not while they churn: with ~400 MB in
 * malloc's heap a trim blocked for up to 20 ms, and the allocator soon took the pages again.
 * Returns the function that stops it.
 */
export function trimAfterChurn(
  churn: () => number,
  everyMs = 5_000,
  trim: Trim | null = mallocTrim(),
): () => void {
  if (!trim) return () => {};
  let seen = churn(), owed = 0;
  const timer = setInterval(() => {
    const now = churn();
    if (now !== seen) return void (seen = now, owed = 2); // still busy: wait for a quiet tick
    if (owed > 0) owed--, trim();
  }, everyMs);
  Deno.unrefTimer(timer); // never keeps the process alive
  return () => clearInterval(timer);
}

let releasedAt = -Infinity;
let pending = false;
let settle: ReturnType<typeof setTimeout> | undefined;

/** What V8's gc takes (`--expose-gc`). */
type Collect = (o?: { type: string; execution: string; flavor: string }) => void;

/** When and how memory is given back (defaults: what the service runs with). */
export interface ReleaseOptions {
  /** Plain collections while searches come: at most one this often. */
  gapMs?: number;
  /** From a collection to the trim: V8's sweeper hands the freed buffers back meanwhile. */
  sweepMs?: number;
  /** Releases stop coming for this long: the burst is over, the thorough one is due. */
  settleMs?: number;
  /** No search for this long: a thorough collection holds no one. */
  quietMs?: number;
  /** Searches never pause: the thorough one runs anyway this long after it was due. */
  settleMaxMs?: number;
  trim?: Trim | null;
  collect?: Collect;
}

const defaults = (o: ReleaseOptions) => ({
  gapMs: 1_000,
  sweepMs: 50,
  settleMs: 3_000,
  quietMs: SEARCH_QUIET_MS,
  settleMaxMs: 10_000,
  trim: mallocTrim(),
  collect: (globalThis as { gc?: Collect }).gc,
  ...o,
});

/**
 * A thorough collection (V8's last resort: two full ones that compact the heap and give its
 * emptied pages back; one plain collection left the heap at 67 MB committed for 28 used, this
 * 32), then `malloc_trim` once the sweeper has handed the buffers back; or a plain one (a
 * third of the hold: it marks the heap once and gives no page back).
 */
function collectNow(o: ReturnType<typeof defaults>, thorough: boolean) {
  o.collect!({ type: "major", execution: "sync", flavor: thorough ? "last-resort" : "regular" });
  releasedAt = performance.now();
}

const quiet = (o: ReturnType<typeof defaults>) => searchesPaused(o.quietMs);

/**
 * The thorough collection once releases stop for `settleMs` (an ingest done, its save
 * written) and no search came for `quietMs` (at most `settleMaxMs` later than that): memory
 * is the indexes' again however the burst's releases fell.
 */
function settleLater(o: ReturnType<typeof defaults>) {
  clearTimeout(settle); // each release puts the thorough one off
  let due = Infinity;
  const check = () => {
    due = Math.min(due, performance.now());
    if (!quiet(o) && performance.now() - due < o.settleMaxMs) {
      settle = setTimeout(check, o.quietMs);
      return void Deno.unrefTimer(settle);
    }
    settle = undefined;
    collectNow(o, true);
    if (o.trim) Deno.unrefTimer(setTimeout(o.trim, o.sweepMs));
  };
  settle = setTimeout(check, o.settleMs);
  Deno.unrefTimer(settle);
}

/**
 * Frees what a large index build, catch-up or compaction dropped, awaited before the request
 * that made it is answered (its pages are garbage too by then), so a search right after finds
 * memory given back. With no search for `quietMs`: the thorough collection and the trim, every
 * time (a release within a second of the last used to be left to the settle). While searches
 * come: a plain collection at most once a gap, and the thorough one when they pause
 * (settleLater): searches during an ingest wait behind a third as much. Nothing where V8's gc
 * is not exposed (`--expose-gc`, which `deno task start:tuned` passes).
 */
export async function releaseMemoryNow(opts: ReleaseOptions = {}): Promise<void> {
  const o = defaults(opts);
  if (!o.collect) return;
  settleLater(o);
  // A turn of the event loop first, so that a pass after an earlier change (indexes.ts
  // prepare), waiting on its timer, can let go of the index a compaction replaced.
  await nextTurn();
  if (quiet(o)) {
    collectNow(o, true);
    if (!o.trim) return;
    await new Promise((r) => setTimeout(r, o.sweepMs)); // awaited: a timer that holds the process
    return o.trim();
  }
  if (performance.now() - releasedAt < o.gapMs) return;
  collectNow(o, false);
  if (o.trim) Deno.unrefTimer(setTimeout(o.trim, o.sweepMs));
}

/**
 * `releaseMemoryNow` for what a caller cannot wait for (a save's copy): on a timer, once the
 * current request is answered, at most once a gap; the thorough one when releases stop.
 */
export function releaseMemorySoon(opts: ReleaseOptions = {}) {
  const o = defaults(opts);
  if (!o.collect) return;
  settleLater(o);
  if (pending || performance.now() - releasedAt < o.gapMs) return;
  pending = true;
  const timer = setTimeout(() => {
    pending = false;
    collectNow(o, quiet(o));
    if (o.trim) Deno.unrefTimer(setTimeout(o.trim, o.sweepMs));
  }, 0);
  Deno.unrefTimer(timer);
}

/** The release the indexes use when tuning is on (lib/memory_release.ts); null without gc. */
export function collectingRelease(opts: ReleaseOptions = {}): MemoryRelease | null {
  if (!defaults(opts).collect) return null;
  return { now: () => releaseMemoryNow(opts), soon: () => releaseMemorySoon(opts) };
}
