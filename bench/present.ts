/**
 * What showing results costs beside ranking them, for this checkout and (optionally) another,
 * run one after the other in rounds so both see the same machine: `deno run -A
 * bench/present.ts [OTHER] [rounds]`. Each run builds the bench corpus's first 2,000 pages,
 * warms up on the bench's 300 title-word queries, then prints per first-seen search: the
 * process's CPU (`indexes.search`), search's and rank's CPU on the index itself (their
 * difference is presenting 10 results: reading, highlighting, sections), and the bytes it
 * allocates (heap growth with a young generation too large to be collected meanwhile), in all
 * and for ranking and presenting on the index itself.
 */
import process from "node:process";
import { benchApp, loadCorpus, makeQueries } from "./corpus.ts";

const FLAGS = "--expose-gc,--min-semi-space-size=64,--max-semi-space-size=64";
const PASSES = 5;

type Root = string;

/** One run's figures for the checkout at `root` (this process). */
async function measure(root: Root) {
  const { createApp } = await import(`${root}/app.ts`);
  const { rank } = await import(`${root}/lib/search/engine/query/rank.ts`);
  const { search } = await import(`${root}/lib/search/engine/presentation/results.ts`);
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const pages = (await loadCorpus()).slice(0, 2000);
  const dir = await Deno.makeTempDir();
  const { services: s, kv, site } = await benchApp(createApp, `${dir}/present.kv`);
  try {
    for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
    await s.indexes.search(site.id, { query: "warm" });
    await s.indexes.idle();
    const queries = makeQueries(pages, 300);
    for (let i = 0; i < 2; i++) {
      for (const q of queries) await s.indexes.search(site.id, { query: q });
    }
    // Bytes allocated: heap growth over batches of 40 searches (a batch a scavenge cut is left out).
    let bytes = 0, counted = 0;
    for (let b = 0; b < 6; b++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (const q of queries.slice(b * 50, b * 50 + 40)) {
        await s.indexes.search(site.id, { query: q });
      }
      const grown = process.memoryUsage().heapUsed - before;
      if (grown > 0) [bytes, counted] = [bytes + grown, counted + 40];
    }
    gc();
    const cpu = () => (({ user, system }) => user + system)(process.cpuUsage());
    let t = cpu();
    for (let p = 0; p < PASSES; p++) {
      for (const q of queries) await s.indexes.search(site.id, { query: q });
    }
    const searchUs = cpu() - t;
    // The index itself (SearchIndexes keeps it private): ranking alone, then with results.
    const { db } = await (s.indexes as unknown as {
      current(site: string): Promise<{ db: unknown }>;
    }).current(site.id);
    let rankUs = 0, allUs = 0;
    for (let p = 0; p < PASSES; p++) {
      t = cpu();
      for (const q of queries) rank(db, q, { limit: 10 });
      rankUs += cpu() - t;
      t = cpu();
      for (const q of queries) search(db, { query: q });
      allUs += cpu() - t;
    }
    const n = PASSES * queries.length;
    // Bytes allocated on the index itself: ranking alone, and with results (as above).
    const grownBy = (run: (q: string) => unknown) => {
      let bytes = 0, counted = 0;
      for (let b = 0; b < 6; b++) {
        gc();
        const before = process.memoryUsage().heapUsed;
        for (const q of queries.slice(b * 50, b * 50 + 40)) run(q);
        const grown = process.memoryUsage().heapUsed - before;
        if (grown > 0) [bytes, counted] = [bytes + grown, counted + 40];
      }
      return bytes / counted / 1024;
    };
    const rankKb = grownBy((q) => rank(db, q, { limit: 10 }));
    const presentKb = grownBy((q) => search(db, { query: q })) - rankKb;
    return {
      rankKb,
      presentKb,
      search: searchUs / n,
      engine: allUs / n,
      rank: rankUs / n,
      present: (allUs - rankUs) / n,
      kb: bytes / counted / 1024,
    };
  } finally {
    s.indexes.discard();
    s.analytics.discard();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--one") {
    console.log(JSON.stringify(await measure(Deno.args[1])));
  } else {
    const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
    const other = Deno.args[0];
    const rounds = Number(Deno.args[1] ?? 2);
    const roots = other ? [other, here] : [here];
    for (let r = 0; r < rounds; r++) {
      for (const root of roots) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            `--v8-flags=${FLAGS}`,
            "--config",
            `${root}/deno.json`,
            import.meta.filename!,
            "--one",
            root,
          ],
          stderr: "inherit",
        }).output();
        if (!out.success) throw new Error(`the run of ${root} failed`);
        const f = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
        const us = (x: number) => `${x.toFixed(0)} µs`;
        console.log(
          `${root}: a first-seen search ${us(f.search)} CPU (~${f.kb.toFixed(0)} KB allocated); ` +
            `search ${us(f.engine)} = rank ${us(f.rank)} + presenting ${us(f.present)} (${
              (f.present / f.engine * 100).toFixed(0)
            } %); allocated: rank ${f.rankKb.toFixed(0)} KB + presenting ${
              f.presentKb.toFixed(0)
            } KB`,
        );
      }
    }
  }
}
