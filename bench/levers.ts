/**
 * Owners' levers on a real documentation site
 * (`deno run -A bench/levers.ts [site dir] [judgments.json]…`):
 * the site's pages go in through the pages API, visitors search the judged queries (each a few
 * times) and click the judged page where it shows in the first ten, then the suggestions the
 * site's own analytics give are applied as an owner would (the first three synonyms and the
 * first two pins) and each query's judged page is ranked again. Prints the rank before and
 * after for each applied suggestion, MRR@10 over every judged query before and after, and
 * the in-process search time with and without the levers.
 * Defaults: Debian's python-scrapy-doc and its judgments (plain and with typos) in ../shared/eval.
 */
import { extractPage } from "../lib/crawl/extract.ts";
import { admin, createSite, OPERATOR, startApp } from "../tests/helpers.ts";
import { percentile } from "./corpus.ts";

const ROOT = Deno.args[0] ?? "/usr/share/doc/python-scrapy-doc/html";
const EVAL = new URL("../../shared/eval/", import.meta.url).pathname;
const SETS = Deno.args.length > 1
  ? Deno.args.slice(1)
  : [`${EVAL}scrapy_judgments.json`, `${EVAL}scrapy_judgments_typo.json`];
const SKIP = /(^|\/)(genindex[^/]*|py-modindex|search)\.html$/;

interface Judgment {
  id: string;
  query: string;
  relevant: string[];
}

async function* files(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && !e.name.startsWith("_")) yield* files(path);
    else if (e.isFile && e.name.endsWith(".html") && !SKIP.test(path)) yield path;
  }
}

const t = await startApp({ eventIpLimitPerMinute: 1_000_000 });
const site = await createSite(t, "pro");
const json = async (res: Response) => {
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.url} ${res.status} ${JSON.stringify(body)}`);
  return body;
};
// Visitors' searches here far outnumber a minute's allowance: the operator lifts it.
await json(
  await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(OPERATOR, { limits: { searchesPerMinute: 1_000_000, searchesPerMonth: null } }),
    method: "PATCH",
  }),
);
let batch: unknown[] = [];
const flush = async () => {
  if (!batch.length) return;
  const put = await json(
    await t.call(`/api/admin/sites/${site.id}/pages`, {
      ...admin(site.adminKey, { pages: batch }),
      method: "PUT",
    }),
  );
  if (put.counts.failed) throw new Error(`pages refused: ${JSON.stringify(put.results)}`);
  batch = [];
};
for await (const path of files(ROOT)) {
  const rel = path.slice(ROOT.length);
  const page = extractPage(await Deno.readTextFile(path), `http://127.0.0.1${rel}`);
  if (!page.title) continue;
  batch.push({
    url: rel,
    title: page.title.slice(0, 500),
    description: page.description.slice(0, 1000),
    body: page.text.slice(0, 2_000_000) || page.title,
    headings: page.sections.map((x) => x.heading.slice(0, 200)).filter(Boolean).slice(0, 200),
  });
  if (batch.length === 100) await flush();
}
await flush();

const judgments: Judgment[] = [];
for (const file of SETS) judgments.push(...JSON.parse(await Deno.readTextFile(file)).judgments);

/** The first ten result paths of a query (sections stripped). */
/** The first results of `q` as a visitor gets them (each with its click token). */
async function shown(q: string): Promise<{ url: string; click: string }[]> {
  const body = await json(
    await t.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}&per_page=10`),
  );
  return body.results;
}
/** The pages of `q`'s first results. */
async function top(q: string): Promise<string[]> {
  return (await shown(q)).map((r) => r.url.split("#")[0]);
}
const rankOf = (urls: string[], relevant: string[]) => {
  const i = urls.findIndex((u) => relevant.includes(u));
  return i < 0 ? null : i + 1;
};
async function mrr(): Promise<number> {
  let sum = 0;
  for (const j of judgments) sum += 1 / (rankOf(await top(j.query), j.relevant) ?? Infinity);
  return sum / judgments.length;
}

// Visitors: each judged query searched 2 to 5 times; each search clicks the judged page if shown.
for (const [k, j] of judgments.entries()) {
  for (let n = 0; n < 2 + (k % 4); n++) {
    const results = await shown(j.query);
    const r = rankOf(results.map((x) => x.url.split("#")[0]), j.relevant);
    if (r === null) continue;
    const { url, click } = results[r - 1];
    await json(
      await t.call(`/api/events?key=${site.publicKey}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ type: "click", query: j.query, position: r, url, click }),
      }),
    ).catch(() => {}); // 204: no body to read
  }
}
await t.services.analytics.flush();
const mrrBefore = await mrr();

const started = performance.now();
const { suggestions } = await json(
  await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey)),
);
const suggestMs = performance.now() - started;
const chosen = [
  ...suggestions.filter((s: { kind: string }) => s.kind === "synonym").slice(0, 3),
  ...suggestions.filter((s: { kind: string }) => s.kind === "pin").slice(0, 2),
];
const synonyms: unknown[] = [], curations: unknown[] = [];
const rows: string[] = [];
for (const s of chosen) {
  const relevant = [
    ...new Set(
      judgments.filter((j) => j.query.toLowerCase() === s.query).flatMap((j) => j.relevant),
    ),
  ];
  const before = rankOf(await top(s.query), relevant);
  if (s.kind === "synonym") synonyms.push(s.apply);
  else curations.push(s.apply);
  const kind = s.kind === "synonym" ? "synonyms" : "curations";
  await json(
    await t.call(`/api/admin/sites/${site.id}/${kind}`, {
      ...admin(site.adminKey, { [kind]: s.kind === "synonym" ? synonyms : curations }),
      method: "PUT",
    }),
  );
  const after = rankOf(await top(s.query), relevant);
  rows.push(
    `${s.kind.padEnd(8)} ${JSON.stringify(s.query).padEnd(28)} ${
      (s.kind === "pin" ? s.url : `→ ${s.to}`).padEnd(34)
    } rank ${before ?? "-"} → ${after ?? "-"}   (${s.searches} searches) ${s.why}`,
  );
}
const mrrAfter = await mrr();

// In-process search time over every judged query, with the levers and without.
const timed = async (withLevers: boolean) => {
  const times: number[] = [];
  for (const j of judgments) {
    const at = performance.now();
    const levers = withLevers ? await t.services.levers.forQuery(site.id, j.query) : undefined;
    await t.services.indexes.search(site.id, { query: j.query, ...levers });
    times.push(performance.now() - at);
  }
  return `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`;
};
await timed(true); // warm
console.log(`site: ${ROOT}, ${judgments.length} judged queries`);
const count = (kind: string) => suggestions.filter((s: { kind: string }) => s.kind === kind).length;
console.log(
  `suggestions: ${count("synonym")} synonyms, ${count("pin")} pins (${
    suggestMs.toFixed(0)
  } ms); applied:`,
);
for (const r of rows) console.log("  " + r);
console.log(`MRR@10 over all judged queries: ${mrrBefore.toFixed(3)} → ${mrrAfter.toFixed(3)}`);
console.log(`search without levers: ${await timed(false)}; with: ${await timed(true)}`);
t.close();
