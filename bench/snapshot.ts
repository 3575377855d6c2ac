/**
 * Snapshot benchmark: a site's first search when its index is not in memory, rebuilt from
 * its pages in KV beside loaded from its snapshot (the cold start after an eviction or on a
 * new instance), and after a restart of main.ts. Alone: `deno run -A bench/snapshot.ts [pages]
 * [restart]`.
 */
import { PageStore } from "../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../lib/search/mod.ts";
import { loadCorpus, makeQueries, mb, percentile } from "./corpus.ts";
import { startServer } from "./server.ts";
import { createSite, OPERATOR, putPages } from "./memory.ts";
import { versionKey } from "../lib/sites/pages.ts";

const ROUNDS = 7;
/** First-seen searches timed right after each restart's first (while a pass after the load runs). */
const FOLLOWING = 60;
const SITE = "bench_snapshot";

const time = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

export async function benchSnapshot(opts: { pages: number }) {
  const corpus = await loadCorpus(opts.pages);
  console.log(`\n## Snapshots: cold first search of a ${corpus.length}-page site`);
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/bench.kv`);
  const pages = new PageStore(kv, Date.now);
  for (const p of corpus) await pages.upsert(SITE, p, Infinity);
  const queries = makeQueries(corpus, ROUNDS * 2);
  const snapshots = new Snapshots(kv, Date.now);
  const ix = new SearchIndexes(pages, { snapshots });

  const rebuilt: number[] = [];
  for (let i = 0; i < 2; i++) {
    const plain = new SearchIndexes(pages); // no snapshots: always a rebuild
    rebuilt.push(await time(() => plain.search(SITE, { query: queries[i] })));
  }
  await ix.search(SITE, { query: queries[0] });
  const save = await time(() => ix.flush());
  const head = (await snapshots.head(SITE))!;
  const expected = await Promise.all(queries.map((q) => ix.search(SITE, { query: q })));

  const loaded: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ix.drop(SITE);
    // A first-seen query on an index not in memory: the snapshot is read from KV and decoded.
    loaded.push(await time(() => ix.search(SITE, { query: queries[ROUNDS + i] })));
  }
  const same =
    JSON.stringify(await Promise.all(queries.map((q) => ix.search(SITE, { query: q })))) ===
      JSON.stringify(expected);
  console.log(
    `snapshot: ${mb(head.size)} in ${head.chunks} chunks, saved in ${
      (save / 1000).toFixed(2)
    } s in the background`,
  );
  console.log(
    `cold first search, rebuilt from pages: ${
      rebuilt.map((x) => `${(x / 1000).toFixed(2)} s`).join(", ")
    }`,
  );
  console.log(
    `cold first search, from the snapshot: p50 ${percentile(loaded, 50).toFixed(0)} ms, max ${
      Math.max(...loaded).toFixed(0)
    } ms over ${ROUNDS} (target ≤ 500 ms), ${
      (Math.min(...rebuilt) / percentile(loaded, 50)).toFixed(1)
    }× faster; ${ix.opened.loaded} loads, ${ix.opened.built} build; results identical: ${same}`,
  );
  kv.close();
  await Deno.remove(dir, { recursive: true });
}

/**
 * The first search of a site after a restart, as issue 30 defines it: the site's pages and
 * snapshot in a KV file, `main.ts` started anew on it, and one first-seen query over HTTP (the
 * key, the snapshot's read and decode, and a first search on code V8 has not compiled yet).
 */
export async function benchRestart(opts: { pages: number; rounds?: number }) {
  const corpus = await loadCorpus(opts.pages);
  const rounds = opts.rounds ?? 5;
  console.log(`\n## Snapshots: first search of a ${corpus.length}-page site after a restart`);
  const tmp = await Deno.makeTempDir({ prefix: "sitesearch-restart-" });
  const kvPath = `${tmp}/kv.sqlite`;
  const env = { SITESEARCH_OPERATOR_TOKEN: OPERATOR };
  // RESTART_SERVER_ARGS replaces the server's `run …` arguments (e.g. to add --cpu-prof).
  const args = Deno.env.get("RESTART_SERVER_ARGS")?.split(" ");
  // MEMORY_SERVER_DIR runs another checkout's main.ts (bench/memory.ts), to compare code.
  const dir = Deno.env.get("MEMORY_SERVER_DIR");
  const serve = () => startServer({ workers: 1, kvPath, env, args, dir });
  let server = await serve();
  const site = await createSite(server.origin, "Restart");
  await putPages(server.origin, site.id, corpus);
  await (await fetch(`${server.origin}/api/search?key=${site.publicKey}&q=warm`)).arrayBuffer();
  // The snapshot is saved in the background once the index has settled: wait for its head.
  const kv = await Deno.openKv(kvPath);
  const saved = async () => {
    const [ver, head] = await kv.getMany<[{ version: number }, { version: number }]>([
      versionKey("page", site.id),
      ["snappage", site.id, "head"],
    ]);
    return head.value !== null && head.value.version === ver.value?.version;
  };
  for (let i = 0; i < 600 && !(await saved()); i++) await new Promise((r) => setTimeout(r, 100));
  kv.close();
  await server.stop();
  const queries = makeQueries(corpus, rounds + FOLLOWING);
  // The same first-seen queries after each restart, while the pass after a load would run.
  const following = queries.slice(rounds);
  const first: number[] = [], next: number[] = [];
  for (const q of queries.slice(0, rounds)) {
    server = await serve();
    try {
      const search = async (q: string) => {
        const t = performance.now();
        const res = await fetch(`${server.origin}/api/search?key=${site.publicKey}&q=${q}`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`search after a restart: ${res.status}`);
        return performance.now() - t;
      };
      first.push(await search(q));
      for (const f of following) next.push(await search(f));
    } finally {
      await server.stop();
    }
  }
  console.log(
    `first search after a restart, from the snapshot: p50 ${
      percentile(first, 50).toFixed(0)
    } ms, max ${Math.max(...first).toFixed(0)} ms over ${rounds} restarts (target ≤ 100 ms)`,
  );
  console.log(
    `the ${FOLLOWING} first-seen searches right after it, one at a time: p50 ${
      percentile(next, 50).toFixed(2)
    } ms, p99 ${percentile(next, 99).toFixed(2)} ms, max ${Math.max(...next).toFixed(1)} ms`,
  );
  await Deno.remove(tmp, { recursive: true });
}

if (import.meta.main) {
  // `… [pages] restart`: the restart figure alone.
  const pages = Number(Deno.args[0] ?? 2000);
  if (Deno.args[1] !== "restart") await benchSnapshot({ pages });
  await benchRestart({ pages });
}
