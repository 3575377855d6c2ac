/**
 * Filters benchmark: in-process search latency at BENCH_PAGES pages (2,000 by default)
 * with a filter against without, facets counted in both (as /api/search answers by default),
 * and without facets, as the search was before filters. Rounds alternate, so noise from
 * other processes falls on every case alike.
 */
import { createApp } from "../app.ts";
import type { PageInput } from "../lib/sites/pages.ts";
import { loadCorpus, makeQueries, ms, percentile, rng } from "./corpus.ts";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const CATEGORIES = Array.from({ length: 12 }, (_, i) => `Category ${i}`);
const LEVELS = ["Beginner", "Intermediate", "Advanced"];

/** `n` pages of the corpus (recombined past its end), each with a category or two and a level. */
function withFilters(corpus: PageInput[], n: number): PageInput[] {
  const rand = rng(11);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  return Array.from({ length: n }, (_, i) => {
    const a = corpus[i % corpus.length], b = pick(corpus);
    const page = i < corpus.length ? a : {
      url: `/generated/${i}`,
      title: `${a.title} and ${b.title}`.slice(0, 200),
      body: a.body.slice(0, 3000) + "\n" + b.body.slice(-3000),
    };
    const category = [...new Set([pick(CATEGORIES), ...(rand() < 0.3 ? [pick(CATEGORIES)] : [])])];
    return { ...page, filters: { category, level: [pick(LEVELS)] } };
  });
}

export async function benchFilters(opts: { pages: number }) {
  const pages = withFilters(await loadCorpus(), opts.pages);
  console.log(
    `\n## Filters: ${pages.length} pages, 12 categories and 3 levels beside the built-ins`,
  );
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/bench.kv`);
  const { services: s } = createApp({ kv, operatorToken: "op_bench", log: () => {} });
  const { site } = await s.sites.create({ name: "Bench", plan: "enterprise" });
  for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
  await s.indexes.search(site.id, { query: "warm" });
  const queries = makeQueries(pages, 300);
  const one = new Map([["category", ["Category 3"]]]);
  const two = new Map([["category", ["Category 3", "Category 7"]], ["level", ["Beginner"]]]);
  const cases = {
    "no filter, no facets": {},
    "no filter, facets": { facets: true },
    "a filter every page passes, no facets": { filters: new Map([["type", ["page"]]]) },
    "1 filter, facets": { filters: one, facets: true },
    "3 values of 2 names, facets": { filters: two, facets: true },
  };
  const lat = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as number[]]));
  for (let round = 0; round < 6; round++) {
    for (const [name, narrow] of Object.entries(cases)) {
      for (const q of queries) {
        const t0 = performance.now();
        await s.indexes.search(site.id, { query: q, ...narrow });
        if (round > 0) lat[name].push(performance.now() - t0); // round 0 warms up (JIT)
      }
      gc();
    }
  }
  const p99 = (k: string) => percentile(lat[k], 99);
  for (const k of Object.keys(cases)) {
    console.log(`${k}: p50 ${ms(percentile(lat[k], 50))}, p99 ${ms(p99(k))}`);
  }
  const ratio = p99("1 filter, facets") / p99("no filter, facets");
  console.log(
    `p99 with a filter / without (facets in both): ${ratio.toFixed(2)} (within 10%: ${
      ratio <= 1.1 ? "yes" : "NO"
    })`,
  );
  s.analytics.discard();
  s.quota.discard();
  kv.close();
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) {
  await benchFilters({ pages: Number(Deno.env.get("BENCH_PAGES") ?? 2000) });
}
