/**
 * The whole suite, as `deno task test` and CI run it: every test file in parallel (one per core),
 * except the files that hold a search or a request to a wall-clock budget (a p99 in
 * milliseconds), which run after them one at a time, so that no neighbour's CPU (a browser test,
 * a crawl) counts against their budgets. Arguments are passed to both runs (e.g. `--filter`).
 * The parallel run starts its longest files first (FIRST): Deno starts files in the order given,
 * and left in path order the longest browser files came last, one of them running alone at the end.
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

/**
 * The parallel run's longest files (a minute or more each on a 2-core machine, most of it waiting
 * on Chromium and servers), started first so that the short ones fill in beside them. None is TIMED.
 */
export const FIRST = [
  "tests/widget/lang_test.ts",
  "tests/islands/browser_test.ts",
  "tests/widget/browser_test.ts",
  "tests/widget/live_test.ts",
  "tests/crawl/kv_limits_test.ts",
  "tests/widget/layout_test.ts",
  "tests/deploy/deploy_shape_test.ts",
  "tests/widget/visitor_browser_test.ts",
  "tests/islands/dashboard_edges_test.ts",
  "tests/realsites/realsites_test.ts",
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

/** Deno's own pattern for test files: `test.ts`, `*_test.ts`, `*.test.ts` (and the JS forms). */
const TEST_FILE = /(^|[._])test\.(ts|tsx|mts|js|mjs|jsx)$/;

/** Every test file under `dir` (a path relative to the project, with "/"), in path order. */
export async function testFiles(dir = "tests"): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await testFiles(path));
    else if (entry.isFile && TEST_FILE.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** The parallel run's files, longest first: FIRST, then the others in path order, no TIMED. */
export function parallelOrder(files: string[]): string[] {
  const apart = new Set([...FIRST, ...TIMED]);
  return [...FIRST, ...files.filter((f) => !apart.has(f))];
}

if (import.meta.main) {
  const extra = Deno.args;
  // Named one by one (not "tests/" with --ignore): Deno keeps the order files are given in.
  const parallel = await run(["--parallel", ...extra, ...parallelOrder(await testFiles())]);
  const timed = await run([...extra, ...TIMED]);
  Deno.exit(parallel && timed ? 0 : 1);
}
