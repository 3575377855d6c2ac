/**
 * Crawl throughput on real documentation: Debian's doc packages (tests/realsites/docs.ts)
 * served by a small static server on 127.0.0.1, each crawled whole from its home page into
 * a KV file on disk, then crawled again (every page answers 304 to the validators kept).
 * Prints pages and seconds per site, and the process's peak RSS.
 *
 *   deno run -A bench/crawl.ts [--delay MS] [--concurrency N]
 *     (default: delay 0; production's politeness delay is CRAWL_DELAY_MS, 250 ms)
 */
import { startCrawlJob } from "../lib/crawl/jobs.ts";
import { createServices } from "../lib/services.ts";
import { DOC_SITES, missingPackages, serveDir } from "../tests/realsites/docs.ts";

/** Other benchmarks serve their directories the same way. */
export { serveDir };

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;

/** Crawls every installed doc package twice at `delayMs` and prints a table row per crawl. */
export async function benchCrawl(opts: { concurrency?: number; delayMs?: number } = {}) {
  const concurrency = opts.concurrency ?? 2;
  const delayMs = opts.delayMs ?? 0;
  const missing = await missingPackages();
  if (missing.length === DOC_SITES.length) {
    console.log(`\n(crawl skipped: apt-get install -y ${missing.join(" ")})`);
    return;
  }
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await Deno.openKv(kvPath);
  const s = createServices({
    kv,
    log: (l) => void (l.level === "error" && console.error(JSON.stringify(l))),
    crawl: { allowLoopback: true, delayMs },
  });
  let peak = 0;
  const sampler = setInterval(() => void (peak = Math.max(peak, Deno.memoryUsage().rss)), 20);
  console.log(
    `\n## Crawl: Debian doc packages on 127.0.0.1, delay ${delayMs} ms, ${concurrency} per host, KV on disk`,
  );
  console.log("| site | run | status | pages stored | requests | seconds | pages/s |");
  console.log("|---|---|---|---|---|---|---|");
  for (const doc of DOC_SITES) {
    if (missing.includes(doc.pkg)) continue;
    const served = serveDir(doc.root);
    const { site } = await s.sites.create({ name: doc.pkg, plan: "enterprise" });
    for (const run of ["first crawl", "re-crawl (304s)"]) {
      const requests = served.requests();
      const t0 = performance.now();
      const started = await startCrawlJob(s, site, { url: `${served.origin}/index.html` }, {
        tuning: { concurrency, workers: Math.max(4, concurrency * 2) },
      });
      const job = await started.done;
      const seconds = (performance.now() - t0) / 1000;
      const stored = job.counts.indexed + job.counts.unchanged;
      console.log(
        `| ${doc.pkg} | ${run} | ${job.status} | ${stored} (${job.counts.indexed} new or changed) | ` +
          `${served.requests() - requests} | ${seconds.toFixed(1)} | ${
            (stored / seconds).toFixed(0)
          } |`,
      );
    }
    await served.close();
  }
  clearInterval(sampler);
  console.log(`  peak RSS: ${mib(peak)}`);
  kv.close();
  await Deno.remove(kvPath);
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(name);
    return i >= 0 ? Number(Deno.args[i + 1]) : undefined;
  };
  await benchCrawl({ concurrency: arg("--concurrency"), delayMs: arg("--delay") });
}
