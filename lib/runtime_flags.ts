/**
 * V8 flags the service runs with: `deno task start` and `dev` (deno.json repeats them; a test
 * checks it does), the workers main.ts spawns, and the benchmarks' servers. Deno Deploy takes
 * no flags and runs with V8's defaults.
 *
 * A young generation of 2 × 8 MB instead of V8's 2 × 16: serving 200 sites of 200 pages
 * (`deno task loadtest`) the server's RSS peaked at 404 MB instead of 448, with the same p99,
 * and saturated throughput moved within noise (1,619 against 1,697 req/s in one run each).
 *
 * `--expose-gc`: after a large build or upsert the indexes free what it left at once
 * (memory_trim.ts `releaseSoon`) rather than when V8's heap has grown by half: an upsert of
 * 200 sites × 200 pages peaked at 324 MB instead of 505.
 */
export const V8_FLAGS = "--expose-gc,--max-semi-space-size=8";
