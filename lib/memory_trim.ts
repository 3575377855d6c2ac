/**
 * Hands memory the allocator keeps back to the system (glibc's `malloc_trim`).
 *
 * An evicted index's buffers go back to malloc, which keeps the pages. Measured under a
 * 256 MB budget with 200 sites, the heap and buffers that stayed live were ~270 MB, yet RSS
 * was ~700 MB, and `malloc_trim` gave nearly all of the difference back.
 *
 * Works only on Linux with glibc and where the process may use FFI (`--allow-ffi`, which
 * `deno task start` grants). Elsewhere (Deno Deploy, macOS, musl) there is nothing to call,
 * and every function here does nothing.
 */

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
  opened = null;
  try {
    if (Deno.build.os !== "linux") return null;
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    const libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
      mallopt: { parameters: ["i32", "i32"], result: "i32" },
    });
    libc.symbols.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
    opened = () => void libc.symbols.malloc_trim(0n);
  } catch {
    // no glibc (musl, another libc), or FFI refused: nothing to trim with
  }
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

/**
 * Frees soon what a large index build, catch-up or compaction dropped, once the request that
 * made it has been answered (its pages are garbage too then): V8's last-resort collection
 * releases the arrays and buffers at once and gives its emptied pages back (one plain
 * collection left the heap at 67 MB committed for 28 used, this 32), and `malloc_trim`, once
 * V8's sweeper has handed the buffers back (`sweepMs` later), returns the pages to the system.
 * At most once every `gapMs`, and once more when releases stop coming for `settleMs` (an
 * ingest done, its save written): RSS per 1,000 pages upserted over HTTP 22–39 MB right after
 * and 12–22 MB 4 s later. A plain collection between an ingest's batches held searches less
 * (forced collections 1,020 → 278 ms over 2,178 pages) but left RSS right after it at 45–62 MB:
 * the budget's line is the figure kept. Nothing where V8's gc is not
 * exposed (`--expose-gc`, which `deno task start` passes).
 */
export function releaseSoon({
  gapMs = 1_000,
  sweepMs = 50,
  settleMs = 3_000,
  trim = mallocTrim(),
  collect = (globalThis as { gc?: Collect }).gc,
}: {
  gapMs?: number;
  sweepMs?: number;
  settleMs?: number;
  trim?: Trim | null;
  collect?: Collect;
} = {}) {
  if (!collect) return;
  const release = (flavor: string) => {
    collect({ type: "major", execution: "sync", flavor });
    if (trim) Deno.unrefTimer(setTimeout(trim, sweepMs));
  };
  clearTimeout(settle); // each release puts the thorough one off
  settle = setTimeout(() => (settle = undefined, release("last-resort")), settleMs);
  Deno.unrefTimer(settle);
  if (pending || performance.now() - releasedAt < gapMs) return;
  pending = true;
  const timer = setTimeout(() => {
    pending = false;
    releasedAt = performance.now();
    release("last-resort");
  }, 0);
  Deno.unrefTimer(timer);
}
