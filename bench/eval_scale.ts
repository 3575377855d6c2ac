/**
 * Search speed and memory at scale (`deno task eval -- --scale`): every installed Debian
 * manual (2,000+ pages) in one site, the judged Django queries as the query set.
 */
import { createSite, startApp } from "../tests/helpers.ts";
import { loadCorpus, percentile } from "./corpus.ts";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const rss = () => {
  gc();
  return Deno.memoryUsage().rss;
};

/**
 * Speed and memory at scale: every installed Debian manual (2,000+ pages), the judged
 * queries as the query set; memory is the process's RSS growth when the index is built.
 */
export async function atScale(EVAL: string) {
  const pages = await loadCorpus();
  const dir = await Deno.makeTempDir();
  const t = await startApp({ kvPath: `${dir}/eval.kv` });
  try {
    const site = await createSite(t, "enterprise", "All manuals");
    for (const p of pages) await t.services.pages.upsert(site.id, p, Infinity);
    const before = rss();
    const t0 = performance.now();
    await t.services.indexes.search(site.id, { query: "warm" }); // builds the index
    const build = performance.now() - t0;
    const grown = rss() - before;
    const queries: string[] = [];
    for (const set of ["django_judgments.json", "django_judgments_typo.json"]) {
      const judgments = JSON.parse(await Deno.readTextFile(`${EVAL}/${set}`)).judgments;
      queries.push(...judgments.map((j: { query: string }) => j.query.slice(0, 200)));
    }
    for (const q of queries) await t.services.indexes.search(site.id, { query: q }); // warm-up
    gc();
    const times: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      for (const q of queries) {
        const t1 = performance.now();
        await t.services.indexes.search(site.id, { query: q });
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
