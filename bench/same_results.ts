/**
 * Whether two checkouts show the same results: `deno run -A bench/same_results.ts OTHER`
 * builds the bench corpus's first 2,000 pages in each (OTHER with its own deno.json), asks
 * both the bench's 300 title-word queries and 3,000 back-of-book entries, and compares every
 * result shown (titles, URLs, descriptions, highlights, sections) and the counts, byte for byte.
 * A speed change that must not change ranking or presentation is checked against main this way.
 */
import { loadCorpus, makeQueries } from "./corpus.ts";
import { indexQueries } from "./index_queries.ts";

type App = typeof import("../app.ts");

/** Every query's results as JSON, from the checkout at `root`. */
async function dump(root: string): Promise<string> {
  const { createApp }: App = await import(`${root}/app.ts`);
  const pages = (await loadCorpus()).slice(0, 2000);
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/same.kv`);
  const { services: s } = createApp({ kv, operatorToken: "op_same", log: () => {} });
  try {
    const { site } = await s.sites.create({ name: "Same", plan: "enterprise" });
    for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
    await s.indexes.search(site.id, { query: "warm" });
    await s.indexes.idle();
    const queries = [...makeQueries(pages, 300), ...(await indexQueries()).slice(0, 3000)];
    const out = [];
    for (const q of queries) {
      const { found, corrections, hits } = await s.indexes.search(site.id, { query: q });
      out.push({ q, found, corrections, hits });
    }
    return JSON.stringify(out);
  } finally {
    s.indexes.discard();
    s.analytics.discard();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const [other, out] = Deno.args;
  const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  if (other === "--dump") {
    await Deno.writeTextFile(out, await dump(Deno.args[2]));
  } else if (other) {
    const file = await Deno.makeTempFile({ suffix: ".json" });
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        `${other}/deno.json`,
        import.meta.filename!,
        "--dump",
        file,
        other,
      ],
    });
    if (!(await child.output()).success) throw new Error(`the dump of ${other} failed`);
    const theirs = JSON.parse(await Deno.readTextFile(file)), ours = JSON.parse(await dump(here));
    await Deno.remove(file);
    const differ = ours.filter((x: unknown, i: number) =>
      JSON.stringify(x) !== JSON.stringify(theirs[i])
    );
    console.log(`${ours.length} queries: ${differ.length} show other results than ${other}`);
    for (const d of differ.slice(0, 10)) console.log(`  ${JSON.stringify(d.q)}`);
    if (differ.length) Deno.exit(1);
  } else console.log("usage: deno run -A bench/same_results.ts /path/to/other/checkout");
}
