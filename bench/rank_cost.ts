/**
 * Ranking's cost in a first-seen search, in process:
 *
 *   deno run -A --v8-flags=--expose-gc,--min-semi-space-size=64,--max-semi-space-size=64 \
 *     bench/rank_cost.ts [ROOT] [--rounds N] [--dump FILE] [--cpu FILE] [--heap FILE]
 *
 * builds the bench corpus's first 2,000 pages in the checkout at ROOT (this one by default),
 * warms up on the bench's 300 queries, then per round prints the CPU time a search takes and
 * rank() alone (10 passes each), and the bytes each allocates (heap growth over batches of
 * 20 queries, the young generation large enough that none is collected meanwhile). Run it
 * for two checkouts in turn (e.g. main's worktree as ROOT) to compare them on one machine.
 * --dump writes every rank() output for the 300 queries and 3,000 index entries (to compare
 * two checkouts byte for byte); --cpu and --heap write a profile of 30 (or 5) passes of
 * rank() alone (node:inspector), for Chrome's DevTools.
 */
import process from "node:process";
import { Session } from "node:inspector";
import { benchApp, loadCorpus, makeQueries } from "./corpus.ts";
import { indexQueries } from "./index_queries.ts";

const args = [...Deno.args];
/** The value after `name` in the arguments (taken out of them). */
const option = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const dumpTo = option("--dump"), cpuTo = option("--cpu"), heapTo = option("--heap");
const rounds = Number(option("--rounds") ?? 3);
const root = args[0] ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const { createApp } = await import(`${root}/app.ts`);
const { rank } = await import(`${root}/lib/search/engine/query/rank.ts`);
const pages = (await loadCorpus()).slice(0, 2000);
const dir = await Deno.makeTempDir();
const { services: s, kv, site } = await benchApp(createApp, `${dir}/rank.kv`);
for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
await s.indexes.search(site.id, { query: "warm" });
await s.indexes.idle();
// The site's index itself: rank() is asked of it without the rest of a search.
const { db } = await (s.indexes as unknown as { current(id: string): Promise<{ db: unknown }> })
  .current(site.id);
const queries = makeQueries(pages, 300);

const search = async (qs = queries) => {
  for (const q of qs) await s.indexes.search(site.id, { query: q });
};
const rankOnly = (qs = queries) => {
  for (const q of qs) rank(db, q, { limit: 10 });
};

/** Posts one inspector command. */
function inspector() {
  const session = new Session();
  session.connect();
  return (method: string, params: object = {}) =>
    new Promise<unknown>((ok, no) => session.post(method, params, (e, r) => e ? no(e) : ok(r)));
}

if (dumpTo) {
  const all = [...queries, ...(await indexQueries()).slice(0, 3000)];
  await Deno.writeTextFile(dumpTo, JSON.stringify(all.map((q) => ({ q, ...rank(db, q, 10) }))));
} else {
  for (let i = 0; i < 3; i++) await search();
  if (cpuTo) {
    const post = inspector();
    await post("Profiler.enable");
    await post("Profiler.setSamplingInterval", { interval: 50 });
    await post("Profiler.start");
    for (let i = 0; i < 30; i++) rankOnly();
    const { profile } = await post("Profiler.stop") as { profile: unknown };
    await Deno.writeTextFile(cpuTo, JSON.stringify(profile));
  }
  if (heapTo) {
    const post = inspector();
    await post("HeapProfiler.enable");
    await post("HeapProfiler.startSampling", {
      samplingInterval: 512,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 0; i < 5; i++) rankOnly();
    await Deno.writeTextFile(heapTo, JSON.stringify(await post("HeapProfiler.stopSampling")));
  }
  const cpu = async (f: () => unknown, passes: number) => {
    const t = process.cpuUsage();
    for (let i = 0; i < passes; i++) await f();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / (passes * queries.length);
  };
  // In batches of 20: a whole pass would fill the young generation and be collected.
  const heap = async (f: (qs: string[]) => unknown) => {
    let grown = 0;
    for (let i = 0; i < queries.length; i += 20) {
      gc();
      const before = Deno.memoryUsage().heapUsed;
      await f(queries.slice(i, i + 20));
      grown += Deno.memoryUsage().heapUsed - before;
    }
    return grown / queries.length;
  };
  const fmt = (n: number) => n.toFixed(0).padStart(6);
  for (let r = 0; r < rounds; r++) {
    const whole = await cpu(search, 10), ranking = await cpu(rankOnly, 10);
    const a = await heap(search), b = await heap(rankOnly);
    console.log(
      `${root}: µs CPU a search ${fmt(whole)}, rank ${fmt(ranking)} (${
        (ranking / whole * 100).toFixed(0)
      } %); bytes a search ${fmt(a)}, rank ${fmt(b)}`,
    );
  }
}
s.indexes.discard();
s.analytics.discard();
kv.close();
await Deno.remove(dir, { recursive: true });
