/**
 * `deno task bench`: every benchmark, printing figures. First the black-box figures we publish
 * (blackbox.ts: the service as README starts it, measured over HTTP only; BLACKBOX=0 skips
 * them, BLACKBOX_SCALE=0 their 200-site part); the in-process benches after them find where time
 * goes. BENCH_PAGES and BENCH_SECONDS adjust size; BENCH_MEMORY=1 adds bench/memory.ts (the server's RSS per 1,000 pages through the API,
 * and 200 sites × 200 pages at INDEX_MEMORY_MB=300: a few minutes).
 */
import { blackBoxScale, blackBoxSearch } from "./blackbox.ts";
import { benchSearch } from "./search.ts";
import { benchSummarize } from "./summarize.ts";
import { evaluate } from "./eval.ts";
import { benchCrawl } from "./crawl.ts";
import { benchRestart, benchSnapshot } from "./snapshot.ts";
import { benchApiGrowth, benchManySites } from "./memory.ts";
import { loadCorpus } from "./corpus.ts";
import { benchFront } from "./front.ts";
import { benchFrontBox } from "./front_box.ts";
import { benchFilters } from "./filters.ts";

const pages = Number(Deno.env.get("BENCH_PAGES") ?? 2000);
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? 10);
console.log(
  `# SiteSearch benchmarks (Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores)`,
);
if (Deno.env.get("BLACKBOX") !== "0") {
  await blackBoxSearch();
  if (Deno.env.get("BLACKBOX_SCALE") !== "0") await blackBoxScale();
}
const run = await benchSearch({ pages, seconds });
await benchSummarize(run.app, run.publicKey, run.queries);
await run.close();
await benchFilters({ pages }); // p99 with a filter against without
await benchFront(); // the HTTP front alone: a cached answer against bare servers
await benchFrontBox(); // the same black-box: main.ts and a bare Deno.serve in their own processes
await benchSnapshot({ pages });
await benchRestart({ pages });
if (Deno.env.get("BENCH_MEMORY") === "1") {
  const corpus = await loadCorpus();
  await benchApiGrowth(corpus);
  await benchManySites(corpus);
}
await benchCrawl();
const hasDjango = await Deno.stat("/usr/share/doc/python-django-doc/html").then(
  () => true,
  () => false,
);
if (hasDjango) await evaluate(); // relevance and FAQ answers of every installed set
else console.log("\n(relevance skipped: apt-get install -y python-django-doc)");
