/**
 * `deno task loadtest`: many sites on one server, as a hosted service sees them. Starts
 * `main.ts` as its own process on 127.0.0.1 (once with 1 worker, once with 2), creates
 * LOADTEST_SITES sites of LOADTEST_PAGES real documentation pages each, then runs a mix for
 * LOADTEST_SECONDS: mostly live-search prefixes and refinements under typing sessions, some
 * whole queries, a few summaries. Prints throughput, p50/p99, errors and the server's RSS.
 * Searches come from wrk (LOADTEST_USERS connections, each a visitor), summaries from here.
 * Runs with --allow-all: Deno reads another process's /proc status only with it.
 */
import { loadCorpus } from "./corpus.ts";
import { rssMb, startServer } from "./server.ts";
import { haveWrk, wrk } from "./wrk.ts";
import { call, createSite, OPERATOR, putPages, queryPool, sitePages } from "./memory.ts";
import type { PageInput } from "../lib/sites/pages.ts";

const SITES = Number(Deno.env.get("LOADTEST_SITES") ?? 200);
const PAGES = Number(Deno.env.get("LOADTEST_PAGES") ?? 200);
const SECONDS = Number(Deno.env.get("LOADTEST_SECONDS") ?? 20);
const USERS = Number(Deno.env.get("LOADTEST_USERS") ?? 50);
/** Bodies are cut so 40,000 pages ingest in minutes; the index still holds real text. */
const BODY_CHARS = Number(Deno.env.get("LOADTEST_BODY_CHARS") ?? 6_000);
/** Seconds of the same mix, untimed, before the timed run. */
const WARM_SECONDS = Number(Deno.env.get("LOADTEST_WARM_SECONDS") ?? 3);
/**
 * Seconds the server idles between the ingest and the warm-up: 40,000 pages in under a minute
 * leave garbage that a server given pages at a crawl's pace does not carry while it serves.
 * Its RSS is printed both right after the ingest and after this rest.
 */
const REST_SECONDS = Number(Deno.env.get("LOADTEST_REST_SECONDS") ?? 16);
/** Seconds the server idles after the run before its settled RSS is read. */
const SETTLE_SECONDS = Number(Deno.env.get("LOADTEST_SETTLE_SECONDS") ?? 16);
/** Share of visits that end with a summary (POST /api/summarize). */
const SUMMARY_SHARE = Number(Deno.env.get("LOADTEST_SUMMARY_SHARE") ?? 0.03);
/** A visitor's pause before each search, 0.5–1.5 times this (0: none, asked as fast as answered). */
const THINK_MS = Number(Deno.env.get("LOADTEST_THINK_MS") ?? 0);
const WORKERS = (Deno.env.get("LOADTEST_WORKERS") ?? "1,2").split(",").map(Number);
/** The server's index budget: its default (256) unless INDEX_MEMORY_MB is set here. */
const INDEX_MB = Deno.env.get("INDEX_MEMORY_MB");
/** INDEX_SNAPSHOTS=off here turns the server's index snapshots off (to compare). */
const SNAPSHOTS = Deno.env.get("INDEX_SNAPSHOTS");
/** Replaces `run -A --v8-flags=<V8_FLAGS> main.ts` (e.g. with `--cpu-prof`, to profile the server). */
const SERVER_ARGS = Deno.env.get("LOADTEST_SERVER_ARGS")?.split(" ").filter(Boolean);
/** A file the server's access log is appended to (else it is read and dropped). */
const SERVER_LOG = Deno.env.get("LOADTEST_SERVER_LOG");
/** Creates the sites, each its own slice of the corpus (bench/memory.ts makes them alike). */
async function createSites(origin: string, corpus: PageInput[]) {
  const keys: string[] = [];
  for (let i = 0; i < SITES; i++) {
    const site = await createSite(origin, `Load ${i}`);
    await putPages(origin, site.id, sitePages(corpus, i, PAGES, BODY_CHARS));
    keys.push(site.publicKey);
  }
  return keys;
}

interface IndexCounts {
  inMemory: number;
  estimatedBytes: number;
  loaded: number;
  built: number;
  evicted: number;
  loadMs: number;
  buildMs: number;
}
interface Stats {
  collected: boolean;
  quota: { admitted: number; waited: number; batches: number; commits: number; conflicts: number };
  memory: { rss: number; heapUsed: number; heapTotal: number; external: number };
  indexes: { budgetBytes: number; pages: IndexCounts; documents: IndexCounts };
}

/** The operator's figures of the process that answers (one of them with several workers). */
async function stats(origin: string, gc = false): Promise<Stats> {
  const res = await call(origin, `/api/admin/stats${gc ? "?gc=1" : ""}`);
  if (res.status !== 200) throw new Error(`stats: ${res.status} ${await res.text()}`);
  return await res.json();
}

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** One of `xs`, at random. */
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

const percentile = (xs: number[], p: number) =>
  xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

/**
 * Searches as visitors type them, in order: 80% of sessions are live-search prefixes (3, 5, 8
 * characters and the whole query), the rest a whole query asked once. Any site, any query.
 */
function searchPaths(keys: string[], queries: string[], sessions: number) {
  const paths: string[] = [];
  for (let n = 0; n < sessions; n++) {
    const key = pick(keys);
    const q = pick(queries);
    if (Math.random() >= 0.8) {
      paths.push(`/api/search?key=${key}&q=${encodeURIComponent(q)}`);
      continue;
    }
    const session = crypto.randomUUID();
    for (const len of new Set([3, 5, 8, q.length].filter((n) => n <= q.length))) {
      const text = encodeURIComponent(q.slice(0, len));
      paths.push(`/api/search?key=${key}&q=${text}&live=1&session=${session}`);
    }
  }
  return { paths, perSession: paths.length / sessions };
}

/** Summaries at `perSecond` (random gaps) until `until`, beside the searches. */
async function askSummaries(
  origin: string,
  keys: string[],
  queries: string[],
  perSecond: number,
  until: number,
  lat: number[],
  errors: Map<string, number>,
) {
  const fail = (why: string) => errors.set(why, (errors.get(why) ?? 0) + 1);
  const asked: Promise<void>[] = [];
  const ask = async (key: string, query: string) => {
    const t0 = performance.now();
    try {
      const res = await fetch(`${origin}/api/summarize?key=${key}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) fail(`summary ${res.status}`);
      else lat.push(performance.now() - t0);
    } catch (err) {
      fail(`summary ${(err as Error).name}`);
    }
  };
  while (perSecond > 0) {
    // Exponential gaps: visitors ask independently of each other.
    const gap = -Math.log(1 - Math.random()) * 1000 / perSecond;
    if (performance.now() + gap >= until) break;
    await new Promise((r) => setTimeout(r, gap));
    const key = pick(keys);
    asked.push(ask(key, pick(queries)));
  }
  await Promise.all(asked);
}

const corpus = await loadCorpus();
if (!corpus.length) {
  console.log("(no corpus: apt-get install -y postgresql-doc-15 python-django-doc python3-doc)");
  Deno.exit(0);
}
if (!(await haveWrk())) {
  console.log("(no load tool: apt-get install -y wrk)");
  Deno.exit(0);
}
const { from, queries } = await queryPool(corpus);
console.log(
  `# loadtest: ${SITES} sites x ${PAGES} pages (bodies <= ${BODY_CHARS} chars), queries from ${from}, ` +
    `${USERS} visitors for ${SECONDS} s, ${navigator.hardwareConcurrency} cores, ` +
    `INDEX_MEMORY_MB ${INDEX_MB ?? "default (256)"}, snapshots ${SNAPSHOTS ?? "on"}`,
);
for (const workers of WORKERS) {
  const dir = await Deno.makeTempDir({ prefix: "sitesearch-loadtest-" });
  const server = await startServer({
    workers,
    kvPath: `${dir}/kv.sqlite`,
    args: SERVER_ARGS,
    log: SERVER_LOG,
    env: {
      SITESEARCH_OPERATOR_TOKEN: OPERATOR,
      SUMMARY_IP_LIMIT_PER_MINUTE: "1000000",
      ...(INDEX_MB ? { INDEX_MEMORY_MB: INDEX_MB } : {}),
      ...(SNAPSHOTS ? { INDEX_SNAPSHOTS: SNAPSHOTS } : {}),
    },
  });
  try {
    const rssStart = rssMb(server.pid);
    const empty = (await stats(server.origin, true)).memory;
    const t0 = performance.now();
    const keys = await createSites(server.origin, corpus);
    const ingest = (performance.now() - t0) / 1000;
    const rssIngested = rssMb(server.pid);
    await new Promise((r) => setTimeout(r, REST_SECONDS * 1000));
    const rssRested = rssMb(server.pid);
    const errors = new Map<string, number>();
    const { paths, perSession } = searchPaths(keys, queries, 20_000);
    // Warm-up: every site answers once, then the same mix runs untimed for WARM_SECONDS, so
    // the timed run measures steady state (not 50 visitors' first requests at one instant).
    for (const key of keys) {
      const res = await fetch(`${server.origin}/api/search?key=${key}&q=the`);
      await res.arrayBuffer();
    }
    const warm = await wrk(server.origin, paths, USERS, WARM_SECONDS, false, THINK_MS);
    // Summaries end SUMMARY_SHARE of the sessions, at the rate the warm-up's searches came.
    const summariesPerSecond = warm.rps / perSession * SUMMARY_SHARE;
    const rssWarm = rssMb(server.pid);
    const stats0 = await stats(server.origin);
    const before = stats0.indexes.pages;
    const start = performance.now();
    let peak = rssWarm;
    const sampler = setInterval(() => peak = Math.max(peak, rssMb(server.pid)), 250);
    const summaries: number[] = [];
    const [searched] = await Promise.all([
      // Searches from wrk: a Deno client on the same two cores adds its own pauses to the tail.
      wrk(
        server.origin,
        paths.slice(warm.requests % paths.length),
        USERS,
        SECONDS,
        false,
        THINK_MS,
      ),
      askSummaries(
        server.origin,
        keys,
        queries,
        summariesPerSecond,
        start + SECONDS * 1000,
        summaries,
        errors,
      ),
    ]);
    clearInterval(sampler);
    const elapsed = (performance.now() - start) / 1000;
    const after = await stats(server.origin);
    const rssEnd = rssMb(server.pid);
    const live = await stats(server.origin, true);
    // What an idle server keeps: the allocator's free pages go back within two trims (main.ts).
    await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
    const rssSettled = rssMb(server.pid);
    // Buffers are freed by a sweeper after a GC: read again once the server has idled.
    const settled = await stats(server.origin, true);
    summaries.sort((a, b) => a - b);
    if (searched.errors) errors.set("search: socket", searched.errors);
    if (searched.non2xx) errors.set("search: not 200", searched.non2xx);
    const total = searched.requests + summaries.length;
    const errCount = [...errors.values()].reduce((a, b) => a + b, 0);
    console.log(`\n## ${workers} worker${workers > 1 ? "s" : ""}`);
    console.log(
      `ingest                ${ingest.toFixed(1)} s; RSS right after it ${
        rssIngested.toFixed(0)
      } MB, ${REST_SECONDS} s later ${rssRested.toFixed(0)} MB`,
    );
    console.log(`requests              ${total} in ${elapsed.toFixed(1)} s`);
    console.log(`throughput            ${(total / elapsed).toFixed(0)} req/s`);
    console.log(
      `search latency        p50 ${searched.p50.toFixed(2)} ms, p99 ${
        searched.p99.toFixed(2)
      } ms (${searched.requests}, wrk)`,
    );
    console.log(
      `summary latency       p50 ${percentile(summaries, 50).toFixed(1)} ms, p99 ${
        percentile(summaries, 99).toFixed(1)
      } ms (${summaries.length})`,
    );
    console.log(
      `errors                ${errCount}${
        errCount ? " " + JSON.stringify(Object.fromEntries(errors)) : ""
      }`,
    );
    console.log(
      `RSS                   start ${rssStart.toFixed(0)} MB, warm ${rssWarm.toFixed(0)} MB, ` +
        `peak ${peak.toFixed(0)} MB, end ${rssEnd.toFixed(0)} MB, ` +
        `${SETTLE_SECONDS} s after a full GC ${rssSettled.toFixed(0)} MB`,
    );
    const ix = after.indexes.pages;
    // Two calls may reach two workers: with several, the counts are one worker's since its start.
    const base = workers > 1 ? { loaded: 0, built: 0, evicted: 0, loadMs: 0 } : before;
    const opened = ix.loaded - base.loaded, built = ix.built - base.built;
    const one = workers > 1 ? " (the one worker that answered, since its start)" : "";
    console.log(
      `indexes in the run    ${opened} loaded from snapshots (${
        opened ? (((ix.loadMs - base.loadMs) / opened).toFixed(1)) : "-"
      } ms each), ${built} built, ${ix.evicted - base.evicted} evicted${one}`,
    );
    console.log(
      `indexes held at end   ${ix.inMemory} of ${keys.length} sites, counted ${
        MB(ix.estimatedBytes)
      } of a ${MB(after.indexes.budgetBytes)} budget${one}`,
    );
    const q = after.quota,
      q0 = workers > 1 ? { admitted: 0, waited: 0, commits: 0, batches: 0 } : stats0.quota;
    const per = (n: number) => (n / Math.max(1, q.admitted - q0.admitted)).toFixed(3);
    console.log(
      `quota in the run      ${q.admitted - q0.admitted} admitted, ${
        per(q.waited - q0.waited)
      } waited for KV, ${per(q.commits - q0.commits)} commits and ${
        per(q.batches - q0.batches)
      } reads per admission${one}`,
    );
    const m = after.memory, l = live.memory;
    console.log(
      `server memory at end  RSS ${MB(m.rss)}: V8 heap ${MB(m.heapUsed)} used of ${
        MB(m.heapTotal)
      }, buffers ${MB(m.external)}${
        live.collected
          ? `; after a full GC: RSS ${MB(l.rss)}, heap ${MB(l.heapUsed)} of ${
            MB(l.heapTotal)
          }, buffers ${MB(l.external)}; ${SETTLE_SECONDS} s later, after another: heap ${
            MB(settled.memory.heapUsed)
          }, buffers ${MB(settled.memory.external)}`
          : ""
      }${one}`,
    );
    if (live.collected && workers === 1) {
      // What the idle process holds live beyond an empty server's, against what the budget counts.
      const { heapUsed, external } = settled.memory;
      const grown = heapUsed + external - empty.heapUsed - empty.external;
      console.log(
        `live growth vs count  ${MB(grown)} live once settled over the empty server's, ${
          MB(ix.estimatedBytes)
        } counted for the indexes held (${(grown / ix.estimatedBytes).toFixed(2)}x)`,
      );
    }
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}
