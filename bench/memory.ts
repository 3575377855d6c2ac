/**
 * Memory benchmark (issue 30): `main.ts` run as its own process, as the README starts it, and
 * read from outside through /proc (VmRSS now, VmHWM its peak), never after a rest:
 *
 * 1. RSS growth per 1,000 pages indexed through the API: every corpus page upserted into one
 *    site over HTTP (PUT …/pages, MEMORY_BATCH pages a request), then one search; VmRSS right
 *    after it, less VmRSS before the first PUT.
 * 2. MEMORY_SITES × MEMORY_PAGES (200 × 200, bodies cut at 6,000 characters as the loadtest
 *    does) at INDEX_MEMORY_MB=MEMORY_BUDGET_MB (300): the peak during the ingest against the
 *    budget + 100 MB, then a warm round (every site's first search, then MEMORY_QUERIES judged
 *    queries a site one at a time over keep-alive, from wrk): their p50 / p99 (wrk's, and each
 *    request's own: wrk.ts) and VmRSS right after, no rest.
 *
 * 3. (`pauses`, only when asked) a small site's searches while figure 1's ingest runs.
 *
 * `deno run -A bench/memory.ts [api|sites|pauses]` (api and sites when not said); `MEMORY_SERVER_DIR=/path`
 * runs another checkout's main.ts with this script, to compare code in the same hour.
 */
import { loadCorpus, percentile } from "./corpus.ts";
import { procMemory, startServer } from "./server.ts";
import { eachRequest, haveWrk, wrk } from "./wrk.ts";
import type { PageInput } from "../lib/sites/pages.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const BATCH = env("MEMORY_BATCH", 500);
const SITES = env("MEMORY_SITES", 200);
const PAGES = env("MEMORY_PAGES", 200);
const BODY_CHARS = env("MEMORY_BODY_CHARS", 6_000);
const BUDGET_MB = env("MEMORY_BUDGET_MB", 300);
const QUERIES = env("MEMORY_QUERIES", 5);
const SERVER_DIR = Deno.env.get("MEMORY_SERVER_DIR");
/** How long the API figure waits, after it, for what stays (the save of the index done). */
const SETTLE_MS = 4_000;
/** The operator token the benchmarks' servers are started with. */
export const OPERATOR = Deno.env.get("MEMORY_OPERATOR") ??
  "op_memory_" + crypto.randomUUID().replaceAll("-", "");

/** An operator's call to the server under test. */
export async function call(origin: string, path: string, init: RequestInit = {}) {
  return await fetch(origin + path, {
    ...init,
    headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/json" },
  });
}

/** Creates an enterprise site whose limits never refuse a benchmark; its id and public key. */
export async function createSite(origin: string, name: string) {
  const res = await call(origin, "/api/admin/sites", {
    method: "POST",
    body: JSON.stringify({ name, plan: "enterprise" }),
  });
  if (res.status !== 201) throw new Error(`create site: ${res.status} ${await res.text()}`);
  const { site, publicKey } = await res.json();
  const patch = await call(origin, `/api/admin/sites/${site.id}`, {
    method: "PATCH",
    body: JSON.stringify({ aiSummaries: true, limits: { searchesPerMinute: 1e12 } }),
  });
  await patch.body?.cancel();
  return { id: site.id as string, publicKey: publicKey as string };
}

/** Upserts pages through the admin API, `batch` a request. */
export async function putPages(origin: string, site: string, pages: PageInput[], batch = 500) {
  for (let i = 0; i < pages.length; i += batch) {
    const put = await call(origin, `/api/admin/sites/${site}/pages`, {
      method: "PUT",
      body: JSON.stringify({ pages: pages.slice(i, i + batch) }),
    });
    if (put.status !== 200) throw new Error(`put pages: ${put.status} ${await put.text()}`);
    await put.body?.cancel();
  }
}

/** Real visitor queries when the shared judgments are present ($EVAL_DIR, else ../shared/eval), else page titles. */
export async function queryPool(
  corpus: { title: string }[],
): Promise<{ from: string; queries: string[] }> {
  const dir = Deno.env.get("EVAL_DIR") ?? new URL("../../shared/eval", import.meta.url).pathname;
  try {
    const { judgments }: { judgments: { query: string }[] } = JSON.parse(
      await Deno.readTextFile(`${dir}/django_judgments.json`),
    );
    return { from: "the judged queries", queries: judgments.map((j) => j.query) };
  } catch {
    const titles = corpus.slice(0, 300).map((p) => p.title.split(/\s+/).slice(0, 3).join(" "));
    return { from: "page titles (no judged queries found)", queries: titles };
  }
}

/** Site i's pages: its own slice of the corpus, bodies cut to `chars` (the loadtest's sites). */
export function sitePages(corpus: PageInput[], i: number, n: number, chars: number): PageInput[] {
  return Array.from({ length: n }, (_, j) => {
    const p = corpus[(i * 37 + j) % corpus.length];
    return { url: p.url, title: p.title, body: p.body.slice(0, chars) };
  });
}

/** Samples a process's VmRSS every `everyMs` until stopped; the highest seen, in MB. */
function sampleRss(pid: number, everyMs = 50) {
  let top = 0;
  const timer = setInterval(() => top = Math.max(top, procMemory(pid).rss), everyMs);
  return () => (clearInterval(timer), Math.max(top, procMemory(pid).rss));
}

const f0 = (x: number) => x.toFixed(0);

/** What the server says it holds (after the RSS was read): indexes counted, heap and buffers. */
async function serverMemory(origin: string): Promise<string> {
  const read = async (
    gc: boolean,
  ) => (await (await call(origin, `/api/admin/stats${gc ? "?gc=1" : ""}`)).json());
  const now = await read(false), live = await read(true);
  const mb = (b: number) => f0(b / 1048576);
  const m = (x: { heapUsed: number; heapTotal: number; external: number }) =>
    `heap ${mb(x.heapUsed)} of ${mb(x.heapTotal)} MB, buffers ${mb(x.external)} MB`;
  const ix = now.indexes.pages;
  return `server: ${ix.inMemory} indexes held, counted ${mb(ix.estimatedBytes)} MB; ${
    m(now.memory)
  }; after a full GC ${m(live.memory)}`;
}

async function withServer<T>(
  env: Record<string, string>,
  run: (origin: string, pid: number) => Promise<T>,
) {
  const dir = await Deno.makeTempDir({ prefix: "sitesearch-memory-" });
  const server = await startServer({
    workers: 1,
    kvPath: `${dir}/kv.sqlite`,
    dir: SERVER_DIR,
    // MEMORY_SERVER_ARGS replaces the server's `run …` arguments (e.g. --cpu-prof, --trace-gc),
    // MEMORY_SERVER_LOG keeps what it prints.
    args: Deno.env.get("MEMORY_SERVER_ARGS")?.split(" "),
    log: Deno.env.get("MEMORY_SERVER_LOG"),
    env: { SITESEARCH_OPERATOR_TOKEN: OPERATOR, ...env },
  });
  try {
    return await run(server.origin, server.pid);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Figure 1: RSS growth per 1,000 pages upserted into one site over HTTP, then searched. */
export async function benchApiGrowth(corpus: PageInput[]) {
  const text = corpus.reduce((n, p) => n + p.body.length, 0) / 1048576;
  console.log(
    `\n## Memory: ${corpus.length} pages (${text.toFixed(1)} MB of text) into one site ` +
      `through the API, ${BATCH} a request, then one search`,
  );
  await withServer({}, async (origin, pid) => {
    const site = await createSite(origin, "Memory");
    const before = procMemory(pid);
    const t = performance.now();
    const stop = sampleRss(pid);
    await putPages(origin, site.id, corpus, BATCH);
    const res = await fetch(`${origin}/api/search?key=${site.publicKey}&q=install`);
    await res.arrayBuffer();
    const after = procMemory(pid);
    const top = stop();
    const per = (mb: number) => f0(mb / corpus.length * 1000);
    console.log(
      `ingest and first search: ${((performance.now() - t) / 1000).toFixed(1)} s; ` +
        `RSS ${f0(before.rss)} → ${f0(after.rss)} MB right after (peak ${
          f0(Math.max(top, after.peak))
        } MB)`,
    );
    console.log(
      `RSS growth per 1,000 pages indexed through the API: ${per(after.rss - before.rss)} MB ` +
        `(peak: ${per(Math.max(top, after.peak) - before.rss)} MB; target ≤ 30)`,
    );
    console.log(await serverMemory(origin));
    // What stays: the index's save (a second after the last change) has run by then.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const settled = procMemory(pid).rss;
    console.log(
      `${SETTLE_MS / 1000} s later, the save done: RSS ${f0(settled)} MB, growth per 1,000 pages ${
        per(settled - before.rss)
      } MB`,
    );
  });
}

/**
 * Searches while another site ingests (the same upserts as figure 1): a small site's first-seen
 * queries one at a time over keep-alive for as long as the ingest runs, their p50 / p99 / max,
 * so what the ingest makes searches wait for (collections forced after builds) shows.
 */
export async function benchIngestPauses(corpus: PageInput[]) {
  console.log(`\n## Searches of another site while ${corpus.length} pages are upserted`);
  await withServer({}, async (origin) => {
    const small = await createSite(origin, "Searched");
    await putPages(origin, small.id, corpus.slice(0, 100), BATCH);
    const queries = corpus.slice(0, 100).flatMap((p) => p.title.split(/\s+/).slice(0, 3));
    const search = async (q: string) => {
      const t = performance.now();
      const res = await fetch(
        `${origin}/api/search?key=${small.publicKey}&q=${encodeURIComponent(q)}`,
      );
      await res.arrayBuffer();
      return performance.now() - t;
    };
    await search("warm");
    const big = await createSite(origin, "Ingested");
    let done = false;
    const ingest = putPages(origin, big.id, corpus, BATCH).finally(() => done = true);
    const times: number[] = [];
    for (let i = 0; !done; i++) times.push(await search(`${queries[i % queries.length]} ${i}`));
    await ingest;
    console.log(
      `${times.length} searches during the ingest: p50 ${percentile(times, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(times, 99).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
    );
  });
}

/** Figure 2: many sites at a budget: the ingest's peak, RSS after a warm round, warm p99. */
export async function benchManySites(corpus: PageInput[]) {
  const { from, queries } = await queryPool(corpus);
  console.log(
    `\n## Memory: ${SITES} sites × ${PAGES} pages (bodies ≤ ${BODY_CHARS} chars) at ` +
      `INDEX_MEMORY_MB=${BUDGET_MB}, then a warm round (${QUERIES} of ${from} a site, one at a time)`,
  );
  await withServer({ INDEX_MEMORY_MB: String(BUDGET_MB) }, async (origin, pid) => {
    const start = procMemory(pid);
    const stop = sampleRss(pid);
    const t = performance.now();
    const keys: string[] = [];
    for (let i = 0; i < SITES; i++) {
      const site = await createSite(origin, `Load ${i}`);
      await putPages(origin, site.id, sitePages(corpus, i, PAGES, BODY_CHARS), BATCH);
      keys.push(site.publicKey);
    }
    const ingested = procMemory(pid);
    const ingestPeak = Math.max(stop(), ingested.peak);
    const seconds = (performance.now() - t) / 1000;
    const limit = BUDGET_MB + 100;
    console.log(
      `ingest of ${SITES * PAGES} pages: ${seconds.toFixed(1)} s; RSS start ${f0(start.rss)} MB, ` +
        `right after ${f0(ingested.rss)} MB, peak ${f0(ingestPeak)} MB ` +
        `(budget + 100 = ${limit}: ${ingestPeak <= limit ? "within" : "over"})`,
    );
    // Every site's first search, then first-seen queries on warm indexes, one at a time.
    const first: number[] = [];
    for (const key of keys) {
      const t0 = performance.now();
      const res = await fetch(`${origin}/api/search?key=${key}&q=the`);
      await res.arrayBuffer();
      first.push(performance.now() - t0);
    }
    const paths = keys.flatMap((key, i) =>
      Array.from({ length: QUERIES }, (_, j) => queries[(i * QUERIES + j) % queries.length])
        .map((q) => `/api/search?key=${key}&q=${encodeURIComponent(q)}`)
    );
    let p50: number, p99: number, how: string, each = "";
    if (await haveWrk()) {
      const r = await wrk(origin, paths, 1, 120, true);
      [p50, p99, how] = [r.p50, r.p99, `wrk, ${r.requests} requests, ${r.non2xx} not 200`];
      each = eachRequest(r);
    } else {
      const lat: number[] = [];
      for (const path of paths) {
        const t0 = performance.now();
        await (await fetch(origin + path)).arrayBuffer();
        lat.push(performance.now() - t0);
      }
      [p50, p99, how] = [percentile(lat, 50), percentile(lat, 99), "Deno fetch, no wrk"];
    }
    const warm = procMemory(pid);
    console.log(
      `first search of each site: p50 ${percentile(first, 50).toFixed(2)} ms, p99 ${
        percentile(first, 99).toFixed(2)
      } ms`,
    );
    console.log(
      `warm round over the ${SITES} sites: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms ` +
        `(${how})${each}; target p99 ≤ 3 ms`,
    );
    console.log(
      `RSS right after ingest and a warm round, no rest: ${f0(warm.rss)} MB (peak ${
        f0(warm.peak)
      } MB; target ≤ 400)`,
    );
    console.log(await serverMemory(origin));
  });
}

if (import.meta.main) {
  const which = Deno.args[0];
  const corpus = await loadCorpus();
  if (!corpus.length) {
    console.log("(no corpus: apt-get install -y postgresql-doc-15 python-django-doc python3-doc)");
    Deno.exit(0);
  }
  if (which === "pauses") await benchIngestPauses(corpus);
  else if (which !== "sites") await benchApiGrowth(corpus);
  if (which !== "api" && which !== "pauses") await benchManySites(corpus);
}
