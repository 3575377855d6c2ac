/**
 * The whole suite, as `deno task test` and CI run it: every test file in parallel (one per core),
 * except the files that hold a search or a request to a wall-clock budget (a p99 in
 * milliseconds), which run after them one at a time, so that no neighbour's CPU (a browser test,
 * a crawl) counts against their budgets. Arguments are passed to both runs (e.g. `--filter`).
 *
 *   deno task test
 */

/** Test files that assert wall-clock latency: they run alone, after the others. */
export const TIMED = [
  "tests/answers/extractive_test.ts",
  "tests/answers/passages_test.ts",
  "tests/crawl/extract_test.ts",
  "tests/http/fairness_test.ts",
  "tests/http/server_test.ts",
  "tests/islands/typing_test.ts",
  "tests/levers/synonyms_api_test.ts",
  "tests/limits/reservations_test.ts",
  "tests/meaning/equivalences_test.ts",
  "tests/routes/search_test.ts",
  "tests/search/indexes_test.ts",
  "tests/search/save_compaction_test.ts",
  "tests/slices_test.ts",
  "tests/tenants/filter_sets_test.ts",
  "tests/tenants/markdown_test.ts",
  "tests/tenants/patterns_test.ts",
  "tests/tenants/robots_test.ts",
  "tests/tenants/work_budget_test.ts",
];

/** What the tests may do: the suite's servers, KV files, Chromium, probes of FFI and /proc. */
const PERMISSIONS = [
  "--allow-ffi",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
];

async function run(args: string[]): Promise<boolean> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", ...PERMISSIONS, ...args],
    stdin: "null",
  }).spawn();
  return (await child.status).success;
}

if (import.meta.main) {
  const extra = Deno.args;
  const parallel = await run(["--parallel", `--ignore=${TIMED.join(",")}`, ...extra, "tests/"]);
  const timed = await run([...extra, ...TIMED]);
  Deno.exit(parallel && timed ? 0 : 1);
}
