/**
 * What a result costs when its page's text is read for the first time (the 200-site case,
 * where the texts kept for results hold a fraction of the pages), for this checkout and
 * (optionally) another, alternating: `deno run -A bench/first_reads.ts [OTHER] [rounds]`.
 * Each run builds the bench corpus's first 2,000 pages, then per pass makes every kept text
 * go (by reading 2,500 other texts of 8,000 characters) and asks the bench's 300 title-word
 * queries on the index itself (searchDb): time per search cold (texts read first) and warm
 * (the same again), less ranking alone, each query's median over the passes (the machine is
 * shared); and the heap a cold search leaves (a batch with no collection between). Run with
 * the service's V8 flags, so the GC's pauses are in the times.
 */
import process from "node:process";
import { benchApp, loadCorpus, makeQueries } from "./corpus.ts";

const PASSES = 5;

/** One run's figures for the checkout at `root` (this process). */
async function measure(root: string) {
  const { createApp } = await import(`${root}/app.ts`);
  const { rank } = await import(`${root}/lib/search/query/rank.ts`);
  const { searchDb } = await import(`${root}/lib/search/presentation/results.ts`);
  const { keptPrefix, packText } = await import(`${root}/lib/search/store/packed_text.ts`);
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const pages = (await loadCorpus()).slice(0, 2000);
  const dir = await Deno.makeTempDir();
  const { services: s, kv, site } = await benchApp(createApp, `${dir}/first.kv`);
  try {
    for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
    await s.indexes.search(site.id, "warm", 1, 10);
    await s.indexes.idle();
    const queries = makeQueries(pages, 300);
    const { db } = await (s.indexes as unknown as {
      current(site: string): Promise<{ db: unknown }>;
    }).current(site.id);
    // Other texts, read to push every kept one out.
    const junk = Array.from(
      { length: 2500 },
      (_, i) =>
        packText(`Filler ${i} text, read only to be forgotten. `.repeat(180).slice(0, 8000)),
    );
    const flush = () => {
      for (const p of junk) keptPrefix(p, 8000).upTo(8000);
    };
    for (const q of queries) searchDb(db, q, 1, 10); // compiled once
    // Per query, the median of its passes' wall times: a pass the machine took from is left out.
    const times = () => queries.map(() => [] as number[]);
    const rankMs = times(), coldMs = times(), warmMs = times();
    const timed = (into: number[][], run: (q: string) => unknown) =>
      queries.forEach((q, i) => {
        const t = performance.now();
        run(q);
        into[i].push(performance.now() - t);
      });
    for (let p = 0; p < PASSES; p++) {
      timed(rankMs, (q) => rank(db, q, 10));
      flush();
      gc();
      timed(coldMs, (q) => searchDb(db, q, 1, 10));
      timed(warmMs, (q) => searchDb(db, q, 1, 10));
    }
    const us = (ms: number[][]) =>
      ms.reduce((n, xs) => n + xs.sort((a, b) => a - b)[xs.length >> 1], 0) * 1000 /
      queries.length;
    // Heap a cold search leaves: batches of 30 after a flush, with no collection between.
    let bytes = 0, counted = 0;
    for (let b = 0; b < 6; b++) {
      flush();
      gc();
      const before = process.memoryUsage().heapUsed;
      for (const q of queries.slice(b * 50, b * 50 + 30)) searchDb(db, q, 1, 10);
      const grown = process.memoryUsage().heapUsed - before;
      if (grown > 0) [bytes, counted] = [bytes + grown, counted + 30];
    }
    return {
      rank: us(rankMs),
      cold: us(coldMs) - us(rankMs),
      warm: us(warmMs) - us(rankMs),
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
    const flags = `--v8-flags=${(await import("../lib/runtime_flags.ts")).V8_FLAGS}`;
    for (let r = 0; r < rounds; r++) {
      for (const root of roots) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            flags,
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
          `${root}: presenting 10 results, texts read first ${us(f.cold)}, kept ${
            us(f.warm)
          } (rank ${us(f.rank)}); a cold search leaves ~${f.kb.toFixed(0)} KB on the heap`,
        );
      }
    }
  }
}
