/**
 * How the service's processes are started: deno.json's tasks repeat these (a test checks they
 * do), the workers main.ts spawns take them, and so do the benchmarks' servers. Deno Deploy
 * takes no flags and runs with V8's defaults.
 *
 * A young generation of 2 × 8 MB instead of V8's 2 × 16: serving 200 sites of 200 pages
 * (`deno task loadtest`) the server's RSS peaked at 404 MB instead of 448, with the same p99,
 * and saturated throughput moved within noise (1,619 against 1,697 req/s in one run each).
 */
export const V8_FLAGS = "--max-semi-space-size=8";

/**
 * `deno task start:tuned` (PLATFORM_TUNING=on, lib/platform): `--expose-gc` as well, so that
 * after a large build or upsert the indexes free what it left at once rather than when V8's
 * heap has grown by half (an upsert of 200 sites × 200 pages peaked at 324 MB instead of 505).
 */
export const TUNED_V8_FLAGS = `--expose-gc,${V8_FLAGS}`;

/**
 * Where `deno task start` may write: the local KV (./data, and the system's temporary folder
 * for a KV_PATH there, as tests and benchmarks use), and the browser scripts it rebuilds when
 * their sources changed (./static).
 */
export const WRITE_PATHS = ["./data", "./static", "/tmp"];
