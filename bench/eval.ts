/**
 * Relevance on real judgments (`deno task eval [site dir] [eval dir]`): serves a
 * documentation site on 127.0.0.1 (its own index pages answer 404), crawls it
 * through the admin API, runs every judged query through the search index, and
 * scores the run with eval/evaluate.py. Then the same pages go through the pages
 * API with title and body only, and are scored again. Prints MRR@10, Recall@10,
 * nDCG@10 and P@1 overall and per kind, and in-process search p50/p99.
 * Defaults: Debian's python-django-doc and ../shared/eval.
 */
import { admin, createSite, startApp, type TestApp, type TestSite } from "../tests/helpers.ts";
import { extractPage } from "../lib/crawl/extract.ts";
import { loadCorpus, percentile } from "./corpus.ts";

const ROOT = Deno.args[0] ?? "/usr/share/doc/python-django-doc/html";
/** The judgments sit beside the repository (../shared/eval), or beside its worktree folder. */
const EVAL = Deno.args[1] ??
  ["../../shared/eval", "../../../shared/eval"].map((p) => new URL(p, import.meta.url).pathname)
    .find((p) => {
      try {
        return Deno.statSync(`${p}/evaluate.py`).isFile;
      } catch {
        return false;
      }
    }) ??
  "../shared/eval";
/** The site's own index pages: they contain every query and link to every answer. */
const SKIP = /(^|\/)(genindex[^/]*|py-modindex|search)\.html$/;
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  js: "text/javascript",
  png: "image/png",
  txt: "text/plain",
};
const noDns = (host: string) => Promise.reject(new Error(`no DNS in eval (${host})`));

/** A static file server for ROOT on 127.0.0.1, the index pages left out. */
function serve() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    let path = decodeURIComponent(new URL(req.url).pathname);
    if (path.endsWith("/")) path += "index.html";
    if (SKIP.test(path) || path.includes("..")) return new Response("gone", { status: 404 });
    try {
      const body = await Deno.readFile(ROOT + path);
      const type = TYPES[path.split(".").pop() ?? ""] ?? "application/octet-stream";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}

async function* files(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && !e.name.startsWith("_")) yield* files(path);
    else if (e.isFile && e.name.endsWith(".html") && !SKIP.test(path)) yield path;
  }
}

async function crawlSite(t: TestApp, site: TestSite, start: string) {
  const res = await t.call(
    `/api/admin/sites/${site.id}/crawl`,
    admin(site.adminKey, { url: start }),
  );
  const { job } = await res.json();
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const r = await t.call(`/api/admin/sites/${site.id}/crawl/${job.id}`, admin(site.adminKey));
    const j = await r.json();
    if (j.status !== "queued" && j.status !== "running") return j;
  }
}

/** Pages as a site owner would send them: title and body only. */
async function putPages(t: TestApp, site: TestSite): Promise<number> {
  let batch: unknown[] = [], n = 0;
  const flush = async () => {
    if (!batch.length) return;
    const res = await t.call(
      `/api/admin/sites/${site.id}/pages`,
      admin(site.adminKey, { pages: batch }, "PUT"),
    );
    await res.body?.cancel();
    n += batch.length;
    batch = [];
  };
  for await (const path of files(ROOT)) {
    const url = path.slice(ROOT.length);
    const page = extractPage(await Deno.readTextFile(path), `http://127.0.0.1${url}`);
    if (page.noindex || !page.text) continue;
    batch.push({ url, title: page.title.slice(0, 500) || url, body: page.text.slice(0, 2e6) });
    if (batch.length === 100) await flush();
  }
  await flush();
  return n;
}

interface Scores {
  [kind: string]: Record<string, number>;
}

/** Runs every judged query, scores the run, prints the table and the search latency. */
async function score(t: TestApp, site: TestSite, label: string) {
  const times: number[] = [];
  const out: Record<string, Scores> = {};
  for (const set of ["django_judgments.json", "django_judgments_typo.json"]) {
    const judgments = JSON.parse(await Deno.readTextFile(`${EVAL}/${set}`)).judgments;
    const run: Record<string, string[]> = {};
    for (let pass = 0; pass < 2; pass++) { // the first pass warms up, the second is timed
      for (const j of judgments) {
        const q = j.query.slice(0, 200);
        const t0 = performance.now();
        const { hits } = await t.services.indexes.search(site.id, q, 1, 10);
        if (pass === 1) times.push(performance.now() - t0);
        run[j.id] = hits.map((h) => h.url);
      }
    }
    const runPath = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(runPath, JSON.stringify(run));
    // EVAL_RUNS=dir keeps each run file, to look at the misses.
    const keep = Deno.env.get("EVAL_RUNS");
    if (keep) await Deno.copyFile(runPath, `${keep}/${label.split(" ")[0]}-${set}`);
    const res = await new Deno.Command("python3", {
      args: [`${EVAL}/evaluate.py`, `${EVAL}/${set}`, runPath, "--json"],
    }).output();
    await Deno.remove(runPath);
    out[set] = JSON.parse(new TextDecoder().decode(res.stdout));
  }
  console.log(`\n### ${label}`);
  console.log("set    kind         n   MRR@10  Recall@10  nDCG@10    P@1");
  for (const [set, scores] of Object.entries(out)) {
    const name = set.includes("typo") ? "typo" : "plain";
    for (const kind of ["all", ...Object.keys(scores).filter((k) => k !== "all").sort()]) {
      const s = scores[kind];
      console.log(
        `${name.padEnd(7)}${kind.padEnd(10)}${String(s.n).padStart(4)}` +
          [s["MRR@10"], s["Recall@10"], s["nDCG@10"], s["P@1"]].map((v) => v.toFixed(3).padStart(9))
            .join("  "),
      );
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    `search in-process, ${times.length} queries: p50 ${percentile(times, 50).toFixed(2)} ms, ` +
      `p99 ${percentile(times, 99).toFixed(2)} ms`,
  );
  return out;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const rss = () => {
  gc();
  return Deno.memoryUsage().rss;
};

/**
 * Speed and memory at scale: every installed Debian manual (2,000+ pages), the judged
 * queries as the query set; memory is the process's RSS growth when the index is built.
 */
async function atScale() {
  const pages = await loadCorpus();
  const dir = await Deno.makeTempDir();
  const t = await startApp({ kvPath: `${dir}/eval.kv` });
  try {
    const site = await createSite(t, "enterprise", "All manuals");
    for (const p of pages) await t.services.pages.upsert(site.id, p, Infinity);
    const before = rss();
    const t0 = performance.now();
    await t.services.indexes.search(site.id, "warm", 1, 10); // builds the index
    const build = performance.now() - t0;
    const grown = rss() - before;
    const queries: string[] = [];
    for (const set of ["django_judgments.json", "django_judgments_typo.json"]) {
      const judgments = JSON.parse(await Deno.readTextFile(`${EVAL}/${set}`)).judgments;
      queries.push(...judgments.map((j: { query: string }) => j.query.slice(0, 200)));
    }
    for (const q of queries) await t.services.indexes.search(site.id, q, 1, 10); // warm-up
    gc();
    const times: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      for (const q of queries) {
        const t1 = performance.now();
        await t.services.indexes.search(site.id, q, 1, 10);
        times.push(performance.now() - t1);
      }
    }
    times.sort((a, b) => a - b);
    // What dropping the index gives back: steadier than RSS growth, which holds the build's garbage.
    // Buffers outside the heap are freed a moment after the GC that found them dead.
    const mem = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 100));
      }
      const m = Deno.memoryUsage();
      return { rss: m.rss, held: m.heapUsed + m.external };
    };
    const withIndex = await mem();
    t.services.indexes.drop(site.id);
    const without = await mem();
    const held = (withIndex.held - without.held) / 1048576;
    console.log(
      `\n### at scale: ${pages.length} pages of every installed manual\n` +
        `index build ${(build / 1000).toFixed(1)} s; RSS growth ${
          (grown / 1048576).toFixed(1)
        } MB ` +
        `(${(grown / 1048576 / pages.length * 1000).toFixed(1)} MB per 1,000 pages); ` +
        `held by the index (heap + external, given back when dropped) ${held.toFixed(1)} MB ` +
        `(${(held / pages.length * 1000).toFixed(1)} MB per 1,000 pages)\n` +
        `search in-process, ${queries.length} judged queries x 3, 10 results with highlights: ` +
        `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`,
    );
  } finally {
    t.close();
    await Deno.remove(dir, { recursive: true });
  }
}

export async function evaluate() {
  const server = serve();
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const t = await startApp({ crawl: { allowLoopback: true, delayMs: 0, resolve: noDns } });
  try {
    const crawled = await createSite(t, "enterprise", "Crawled");
    let t0 = performance.now();
    const job = await crawlSite(t, crawled, `${origin}/index.html`);
    const pages = (await t.services.pages.version(crawled.id)).pages;
    console.log(
      `## Relevance: ${ROOT}\ncrawl ${job.status}: ${pages} pages in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s`,
    );
    await score(t, crawled, `crawled (${pages} pages)`);
    t.services.indexes.drop(crawled.id);

    const sent = await createSite(t, "enterprise", "Pages API");
    t0 = performance.now();
    const n = await putPages(t, sent);
    console.log(
      `\npages API: ${n} pages (title and body) in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s`,
    );
    await score(t, sent, `pages API, title and body only (${n} pages)`);
  } finally {
    t.close();
    await server.shutdown();
  }
}

if (import.meta.main) {
  await evaluate();
  await atScale();
}
