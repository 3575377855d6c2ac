/**
 * How the service's processes are started: deno.json's tasks repeat these (a test checks they
 * do), the workers main.ts spawns take them, and so do the benchmarks' servers. Deno Deploy
 * takes no flags and runs with V8's defaults.
 *
 * A young generation of 2 × 8 MB instead of V8's 2 × 16: serving 200 sites of 200 pages
 * (`deno task loadtest`) the server's RSS peaked at 404 MB instead of 448, with the same p99,
 * and saturated throughput moved within noise (1,619 against 1,697 req/s in one run each).
 *
 * Without forced collections (those need `--expose-gc`, the opt-in tuning's), V8 is asked to
 * give memory back sooner on its own once the process is quiet: its memory reducer after
 * 0.5 s instead of 8 and 30, and freed pages returned after 1 s instead of 8. Upserting 2,400
 * pages left RSS 30.8 MB per 1,000 pages higher 10 s later, against 61.6 with V8's defaults;
 * its memory saver mode gave 10-14 at 2 s (with the young generation held at 2 × 8 MB), but
 * makes every full collection one that reduces memory, 15-25 ms long: first-seen p99 3.5-7.5 ms
 * (BENCHMARKS.md, "Tried and not adopted").
 *
 * The old generation may grow 50 % past what a full collection left live before the next one,
 * not V8's up to 4 times: until the memory reducer comes (~6 s after the last allocation), what
 * an ingest's collections freed stays committed otherwise. In the black box (two runs each):
 * RSS per 1,000 pages 2 s after an upsert 37 MB instead of 51, after the 200-site round 493–511
 * MB instead of 630–676; saturated throughput 8 % lower, first-seen p99 ~0.4 ms higher. 10 %
 * saved more (29–31 MB, 443–447 MB) but took the warm p99 past 3 ms.
 *
 * No allocation-site pretenuring: V8 allocates straight in the old generation what code
 * allocated at a site whose objects lately outlived young collections. An ingest or a burst of
 * first-seen searches under load teaches that to the sites a request's short-lived objects come
 * from (the HTTP head's strings and arrays, a search's arrays); once the load is over, each
 * request's garbage lands in the old generation and holds what it points to through every young
 * collection until a full one. After the black box's wrk round of 1,742 distinct queries on
 * 2,400 pages, a repeated query then promoted ~390 KB a young collection (15.6 KB without it),
 * its young collections took 1.2 ms (0.6) and a full one came every 1.3–3.5 s (none in 10 s);
 * wrk's p99 on it 9.5 ms against 3.3 (BENCHMARKS.md, "Pretenuring").
 */
export const V8_FLAGS = [
  "--max-semi-space-size=8",
  "--no-allocation-site-pretenuring",
  "--heap-growing-percent=50",
  "--memory-reducer-delay-ms=500",
  "--gc-memory-reducer-start-delay-ms=500",
  "--memory-pool-timeout=1",
].join(",");

/**
 * glibc's malloc settings `deno task start` and `dev` run with (deno.json repeats them; a test
 * checks it does, and that the server started by `deno task start` has them). They ask for no
 * permission, and other C libraries and Deno Deploy ignore them. Without them glibc raises its
 * mmap threshold to the largest block freed (an upsert's body, an index's packed bytes: several
 * MB), after which every smaller ArrayBuffer is carved from the main heap, whose free top it
 * returns only past twice that threshold; and each thread may take an arena of its own. In the
 * black box (two runs each): RSS per 1,000 pages 2 s after an upsert 32–34 MB instead of 39–42,
 * after the 200-site round 470–483 MB instead of 479–514; searches as fast.
 */
export const MALLOC_ENV = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
};

/**
 * `deno task start:tuned` (PLATFORM_TUNING=on, lib/platform): `--expose-gc`, so that after a
 * large build or upsert the indexes free what it left at once, thoroughly, and glibc's trim
 * follows (an upsert of 200 sites × 200 pages peaked at 324 MB instead of 505); V8's own
 * memory saving is left at its defaults there, as it was measured.
 */
export const TUNED_V8_FLAGS = "--expose-gc,--max-semi-space-size=8";

/**
 * Where `deno task start` may write: the local KV (./data, and the system's temporary folder
 * for a KV_PATH there, as tests and benchmarks use), and the browser scripts it rebuilds when
 * their sources changed (./static).
 */
export const WRITE_PATHS = ["./data", "./static", "/tmp"];
