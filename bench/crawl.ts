/**
 * Crawl throughput: the PostgreSQL 15 manual (Debian's postgresql-doc-15, 1,169
 * pages) served by a small static server on 127.0.0.1, crawled from its index page
 * with the politeness delay at zero, into a KV file on disk; then crawled again,
 * when every page answers 304 to the validators kept. Prints pages per second and
 * the process's peak RSS (server, crawler, KV and search index together).
 *
 *   deno run -A bench/crawl.ts [--concurrency N]     (default 2 per host, as in production)
 */
import { startCrawlJob } from "../lib/crawl/jobs.ts";
import { createServices } from "../lib/services.ts";

const DOCS = "/usr/share/doc/postgresql-doc-15/html";
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  svg: "image/svg+xml",
  png: "image/png",
  js: "text/javascript",
};

/** Serves a directory with ETag and Last-Modified, answering 304 to matching validators. */
export function serveDir(root: string) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    requests++;
    let path = decodeURIComponent(new URL(req.url).pathname);
    if (path.endsWith("/")) path += "index.html";
    if (path.split("/").includes("..")) return new Response("bad path", { status: 400 });
    try {
      const file = `${root}${path}`;
      const info = await Deno.stat(file);
      const etag = `"${info.size.toString(36)}-${(info.mtime?.getTime() ?? 0).toString(36)}"`;
      const headers = {
        "Content-Type": TYPES[path.split(".").pop() ?? ""] ?? "application/octet-stream",
        "ETag": etag,
        "Last-Modified": (info.mtime ?? new Date(0)).toUTCString(),
      };
      if (req.headers.get("if-none-match") === etag) {
        return new Response(null, { status: 304, headers });
      }
      return new Response(await Deno.readFile(file), { headers });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return { server, origin: `http://127.0.0.1:${server.addr.port}`, requests: () => requests };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;

export async function benchCrawl(opts: { concurrency?: number } = {}) {
  const concurrency = opts.concurrency ?? 2;
  if (!(await Deno.stat(DOCS).then(() => true, () => false))) {
    console.log(`\n(crawl skipped: apt-get install -y postgresql-doc-15 for ${DOCS})`);
    return;
  }
  const docs = serveDir(DOCS);
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await Deno.openKv(kvPath);
  const s = createServices({
    kv,
    log: (l) => void (l.level === "error" && console.error(JSON.stringify(l))),
    crawl: { allowLoopback: true, delayMs: 0 },
  });
  const { site } = await s.sites.create({ name: "PostgreSQL docs", plan: "enterprise" });

  let peak = 0;
  const sample = () => void (peak = Math.max(peak, Deno.memoryUsage().rss));
  const sampler = setInterval(sample, 20);
  const before = Deno.memoryUsage().rss;
  console.log(
    `\n## Crawl: ${DOCS} on 127.0.0.1, delay 0, ${concurrency} per host, KV on disk`,
  );
  console.log("| run | pages stored | requests | seconds | pages/s | peak RSS |");
  console.log("|---|---|---|---|---|---|");
  for (const run of ["first crawl", "re-crawl (304s)"]) {
    peak = 0;
    const requests = docs.requests();
    const t0 = performance.now();
    const started = await startCrawlJob(s, site, { url: `${docs.origin}/index.html` }, {
      tuning: { concurrency, workers: Math.max(4, concurrency * 2) },
    });
    const job = await started.done;
    const seconds = (performance.now() - t0) / 1000;
    sample();
    const stored = job.counts.indexed + job.counts.unchanged;
    console.log(
      `| ${run} | ${stored} (${job.counts.indexed} new or changed) | ` +
        `${docs.requests() - requests} | ${seconds.toFixed(1)} | ` +
        `${(stored / seconds).toFixed(0)} | ${mib(peak)} |`,
    );
    if (job.status !== "done") console.log(`  status ${job.status}: ${job.error}`);
    if (run === "first crawl") {
      const c = job.counts;
      const reasons = Object.entries(job.reasons).map(([r, n]) => `${r} ${n}`).join(", ");
      console.log(
        `  discovered ${c.discovered}, skipped ${c.skipped}, failed ${c.failed} (${reasons});` +
          ` RSS before: ${mib(before)}`,
      );
    }
  }
  clearInterval(sampler);
  const hits = await s.indexes.search(site.id, "vacuum freeze", 1, 3);
  console.log(
    `  search "vacuum freeze" afterwards: ${hits.found} results, first ${hits.hits[0]?.url}`,
  );
  kv.close();
  await docs.server.shutdown();
  await Deno.remove(kvPath);
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--concurrency");
  await benchCrawl({ concurrency: i >= 0 ? Number(Deno.args[i + 1]) : undefined });
}
