/**
 * Snapshot benchmark: a site's first search when its index is not in memory, rebuilt from
 * its pages in KV beside loaded from its snapshot (the cold start after an eviction or on a
 * new instance). Alone: `deno run -A bench/snapshot.ts [pages]`.
 */
import { PageStore } from "../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../lib/search/mod.ts";
import { loadCorpus, makeQueries, mb, percentile } from "./corpus.ts";

const ROUNDS = 7;
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
  const ix = new SearchIndexes(pages, Date.now, 500, Infinity, { snapshots });

  const rebuilt: number[] = [];
  for (let i = 0; i < 2; i++) {
    const plain = new SearchIndexes(pages, Date.now); // no snapshots: always a rebuild
    rebuilt.push(await time(() => plain.search(SITE, queries[i], 1, 10)));
  }
  await ix.search(SITE, queries[0], 1, 10);
  const save = await time(() => ix.flush());
  const head = (await snapshots.head(SITE))!;
  const expected = await Promise.all(queries.map((q) => ix.search(SITE, q, 1, 10)));

  const loaded: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ix.drop(SITE);
    // A first-seen query on an index not in memory: the snapshot is read from KV and decoded.
    loaded.push(await time(() => ix.search(SITE, queries[ROUNDS + i], 1, 10)));
  }
  const same = JSON.stringify(await Promise.all(queries.map((q) => ix.search(SITE, q, 1, 10)))) ===
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

if (import.meta.main) await benchSnapshot({ pages: Number(Deno.args[0] ?? 2000) });
