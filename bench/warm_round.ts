/**
 * The 200-site warm round in process (issue 30's "warm p99 over the 200 sites", without HTTP):
 * WARM_SITES × 200 pages (bodies ≤ 6,000 characters, as `bench/memory.ts sites`) upserted
 * through `app.fetch` at INDEX_MEMORY_MB=WARM_BUDGET_MB (300), every site's first search, then
 * 5 judged queries a site one at a time: p50 / p90 / p99 and the slowest. With WARM_AGAIN=1 the
 * result cache is off and the round is asked a second time (what the first reads cost: the
 * same queries on the same pages). With `--cpu-prof`, the functions `__MARK_START` and
 * `__MARK_END` bound the round, and WARM_SPANS=file writes each request's [start, end] in ms
 * after `__MARK_START` returned, to read only the slow requests' samples.
 *
 * `deno run -A --v8-flags=<lib/runtime_flags.ts> bench/warm_round.ts`
 */
import { createApp } from "../app.ts";
import { loadCorpus, percentile } from "./corpus.ts";
import { queryPool, sitePages } from "./memory.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const SITES = env("WARM_SITES", 200);
const BUDGET_MB = env("WARM_BUDGET_MB", 300);
const QUERIES = 5;
const AGAIN = Deno.env.get("WARM_AGAIN") === "1";
const SPANS = Deno.env.get("WARM_SPANS");

/** Busy for 60 ms: a mark in a CPU profile. */
function __MARK_START() {
  const t = performance.now();
  while (performance.now() - t < 60);
}
/** Busy for 60 ms: a mark in a CPU profile. */
function __MARK_END() {
  const t = performance.now();
  while (performance.now() - t < 60);
}

const f2 = (x: number) => x.toFixed(2);
const line = (name: string, xs: number[]) =>
  `${name}: p50 ${f2(percentile(xs, 50))}, p90 ${f2(percentile(xs, 90))}, p99 ${
    f2(percentile(xs, 99))
  } ms`;

if (import.meta.main) {
  const corpus = await loadCorpus();
  if (!corpus.length) {
    console.log("(no corpus: apt-get install -y postgresql-doc-15 python-django-doc python3-doc)");
    Deno.exit(0);
  }
  const { queries } = await queryPool(corpus);
  const dir = await Deno.makeTempDir({ prefix: "sitesearch-warm-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  const { app, services: s } = createApp({
    kv,
    operatorToken: "op_warm",
    log: () => {},
    indexMemoryBytes: BUDGET_MB * 1048576,
    indexSnapshots: true,
    summaryIpLimitPerMinute: 1e9,
    resultCacheBytes: AGAIN ? 1 : undefined,
  });
  const headers = { authorization: "Bearer op_warm", "content-type": "application/json" };
  const call = async (path: string, method = "GET", body?: unknown) => {
    const res = await app.fetch(
      new Request("http://x" + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return await res.json();
  };
  const keys: string[] = [];
  const t = performance.now();
  for (let i = 0; i < SITES; i++) {
    const { site, publicKey } = await call("/api/admin/sites", "POST", {
      name: `Warm ${i}`,
      plan: "enterprise",
    });
    await call(`/api/admin/sites/${site.id}`, "PATCH", {
      limits: { searchesPerMinute: 1_000_000 },
    });
    await call(`/api/admin/sites/${site.id}/pages`, "PUT", {
      pages: sitePages(corpus, i, 200, 6_000),
    });
    keys.push(publicKey);
  }
  console.log(`${SITES} sites × 200 pages: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const get = async (path: string) => {
    const t0 = performance.now();
    await (await app.fetch(new Request("http://x" + path))).arrayBuffer();
    return performance.now() - t0;
  };
  const first: number[] = [];
  for (const key of keys) first.push(await get(`/api/search?key=${key}&q=the`));
  console.log(line("first search of each site", first));
  const asks = keys.flatMap((key, i) =>
    Array.from({ length: QUERIES }, (_, j) => queries[(i * QUERIES + j) % queries.length])
      .map((q) => ({ q, path: `/api/search?key=${key}&q=${encodeURIComponent(q)}` }))
  );
  __MARK_START();
  const markAt = performance.now();
  const round: number[] = [], spans: [number, number][] = [];
  for (const { path } of asks) {
    const ms = await get(path);
    round.push(ms);
    spans.push([performance.now() - ms - markAt, performance.now() - markAt]);
  }
  __MARK_END();
  if (SPANS) await Deno.writeTextFile(SPANS, JSON.stringify(spans));
  console.log(line(`warm round, ${round.length} first-seen`, round));
  const slowest = round.map((ms, n) => ({ ms, n })).sort((a, b) => b.ms - a.ms).slice(0, 10);
  if (AGAIN) {
    const again: number[] = [];
    for (const { path } of asks) again.push(await get(path));
    console.log(line("the same round again, result cache off", again));
    for (const { ms, n } of slowest) {
      console.log(`  ${f2(ms)} then ${f2(again[n])} ms: ${asks[n].q}`);
    }
  } else for (const { ms, n } of slowest) console.log(`  ${f2(ms)} ms: ${asks[n].q}`);
  console.log(`indexes: ${JSON.stringify(s.indexes.churn)}`);
  kv.close();
  Deno.exit(0);
}
