/**
 * Relevance on real judgments: indexes the Django docs (Debian's
 * python-django-doc) as a crawl would extract them, runs every judged query
 * through the search index, and scores the run with shared/eval/evaluate.py.
 * `deno run -A bench/eval.ts [path/to/eval]` (default ../shared/eval).
 */
import { createApp } from "../app.ts";
import { extractPage } from "../lib/crawl/extract.ts";

const ROOT = "/usr/share/doc/python-django-doc/html";
const EVAL = Deno.args[0] ?? new URL("../../shared/eval", import.meta.url).pathname;
/** The eval README: leave out the pages that index the whole site. */
const SKIP = /(^|\/)(genindex[^/]*|py-modindex|search)\.html$/;

async function* files(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && !e.name.startsWith("_")) yield* files(path);
    else if (e.isFile && e.name.endsWith(".html") && !SKIP.test(path)) yield path;
  }
}

export async function evaluate() {
  const kv = await Deno.openKv(":memory:");
  const { services: s } = createApp({ kv, log: () => {} });
  const { site } = await s.sites.create({ name: "Django docs", plan: "enterprise" });
  let n = 0;
  for await (const path of files(ROOT)) {
    const url = path.slice(ROOT.length);
    const page = extractPage(await Deno.readTextFile(path), `http://127.0.0.1${url}`);
    if (page.noindex || !page.text) continue;
    await s.pages.upsert(site.id, {
      url,
      title: page.title || url,
      description: page.description,
      body: page.text,
      headings: page.sections.map((x) => x.heading).filter(Boolean).slice(0, 200),
    }, Infinity);
    n++;
  }
  console.log(`\n## Relevance: ${n} Django pages, judged queries from its back-of-book index`);
  for (const set of ["django_judgments.json", "django_judgments_typo.json"]) {
    const judgments = JSON.parse(await Deno.readTextFile(`${EVAL}/${set}`)).judgments;
    const run: Record<string, string[]> = {};
    for (const j of judgments) {
      const q = j.query.slice(0, 200);
      run[j.id] = (await s.indexes.search(site.id, q, 1, 10)).hits.map((h) => h.url);
    }
    const runPath = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(runPath, JSON.stringify(run));
    const out = await new Deno.Command("python3", {
      args: [`${EVAL}/evaluate.py`, `${EVAL}/${set}`, runPath],
    }).output();
    console.log(`${set}:\n${new TextDecoder().decode(out.stdout).trim()}`);
    await Deno.remove(runPath);
  }
  kv.close();
}

if (import.meta.main) await evaluate();
