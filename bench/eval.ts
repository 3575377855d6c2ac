/**
 * `deno task eval [set ...]`: every evaluation set (eval_sets.ts: Django, Scrapy, Celery
 * from ../shared/eval; git-doc, GNU gettext's manual, the Debian FAQ and ikiwiki's site with
 * judgments derived from their own structure, eval_derived.ts), each site served on 127.0.0.1 and crawled whole without its index pages. Relevance: every
 * judged query (plain and with a typo) through the search index, scored by evaluate.py.
 * Answers: every FAQ question and every how-to question (made from the site's gerund section
 * headings, extract_howto.py) through POST /api/summarize, scored by score_answers.py.
 * Prints one table, then (with --scale) search speed and memory over every installed manual;
 * `--misses` prints each judged query whose first result is not relevant (stderr). The guard
 * (eval_guard.ts) fails the run when a set falls more than 0.01 below bench/eval_baseline.json,
 * unless `--accept="<a general reason>"`; `--update` writes the run's figures as the baseline.
 */
import { percentile } from "./corpus.ts";
import { crawlSet, disposeSets, EVAL_DIR, type EvalSet, evalSets } from "./eval_sets.ts";
import { type FaqScore, scoreFaq } from "./answers.ts";
import { atScale } from "./eval_scale.ts";
import type { Services } from "../lib/services.ts";
import {
  BASELINE_PATH,
  drops,
  type Figures,
  readBaseline,
  updated,
  verdict,
} from "./eval_guard.ts";

interface Row {
  set: EvalSet;
  pages: number;
  crawlSeconds: number;
  plain?: Record<string, number>;
  typo?: Record<string, number>;
  faq?: FaqScore;
  howto?: FaqScore;
  searchMs: number[];
}

/** `--misses`: every judged query whose first result is not relevant is printed. */
const MISSES = Deno.args.includes("--misses");

/** A miss: the query, the pages judged relevant, and what ranked above the first of them. */
function misses(j: { query: string; relevant: string[] }, urls: string[]) {
  const paths = urls.map((u) => u.replace(/^https?:\/\/[^/]+/, "").replace(/#.*/, ""));
  const at = paths.findIndex((p) => j.relevant.includes(p));
  if (at === 0) return;
  const above = at < 0 ? paths : paths.slice(0, at);
  console.error(
    `${at < 0 ? "-" : at + 1}\t${j.query}\twant ${j.relevant.join(" ")}\tabove ${above.join(" ")}`,
  );
}

/** MRR@10 and the rest for one judgment file, from the index's own ranking. */
async function relevance(s: Services, siteId: string, file: string, times: number[]) {
  const judgments = JSON.parse(await Deno.readTextFile(file)).judgments;
  const run: Record<string, string[]> = {};
  for (const j of judgments) {
    const t0 = performance.now();
    const { hits } = await s.indexes.search(siteId, { query: j.query.slice(0, 200) });
    times.push(performance.now() - t0);
    run[j.id] = hits.map((h) => h.url);
    if (MISSES) misses(j, run[j.id]);
  }
  const runPath = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(runPath, JSON.stringify(run));
  // EVAL_RUNS=dir keeps each run file, to look at the misses.
  const keep = Deno.env.get("EVAL_RUNS");
  if (keep) await Deno.copyFile(runPath, `${keep}/${file.split("/").pop()}`);
  const res = await new Deno.Command("python3", {
    args: [`${EVAL_DIR}/evaluate.py`, file, runPath, "--json"],
  }).output();
  await Deno.remove(runPath);
  return JSON.parse(new TextDecoder().decode(res.stdout)).all as Record<string, number>;
}

const f = (v: number | undefined, d = 3) => v === undefined ? "–" : v.toFixed(d);

function print(rows: Row[]) {
  console.log(
    "\n| set | pages | queries | MRR@10 plain | MRR@10 typo | P@1 plain | FAQ n | F1 | recall | " +
      "precision | cite@1 | cite | how-to n | how-to F1 | how-to cite@1 | " +
      "first delta p50 / p99 ms | search p50 / p99 ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const firsts = [...(r.faq?.firsts ?? []), ...(r.howto?.firsts ?? [])].sort((a, b) => a - b);
    const times = [...r.searchMs].sort((a, b) => a - b);
    console.log(
      `| ${r.set.name} | ${r.pages} | ${r.plain?.n ?? "–"} | ${f(r.plain?.["MRR@10"])} | ${
        f(r.typo?.["MRR@10"])
      } | ` +
        `${f(r.plain?.["P@1"])} | ${r.faq?.n ?? "–"} | ${f(r.faq?.f1)} | ${f(r.faq?.recall)} | ` +
        `${f(r.faq?.precision)} | ${f(r.faq?.cite1)} | ${f(r.faq?.cite)} | ` +
        `${r.howto?.n ?? "–"} | ${f(r.howto?.f1)} | ${f(r.howto?.cite1)} | ` +
        (firsts.length
          ? `${f(percentile(firsts, 50), 1)} / ${f(percentile(firsts, 99), 1)}`
          : "–") +
        ` | ${
          times.length ? `${f(percentile(times, 50), 2)} / ${f(percentile(times, 99), 2)}` : "–"
        } |`,
    );
  }
}

/**
 * A copy of a judgment file keeping the questions whose page the crawl stored: a page no link
 * reaches from the start (a contributor's guide linked only from its siblings) cannot answer.
 * Null where none is left.
 */
async function crawledOnly(s: Services, siteId: string, file: string): Promise<string | null> {
  const set = JSON.parse(await Deno.readTextFile(file));
  const kept = [];
  for (const j of set.judgments) if (await s.pages.meta(siteId, j.page)) kept.push(j);
  if (!kept.length) return null;
  const path = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(path, JSON.stringify({ ...set, judgments: kept }));
  return path;
}

/** Crawls and scores every set (or those named); prints one table. */
export async function evaluate(
  opts: { relevance?: boolean; answers?: boolean; only?: string[] } = {},
) {
  const rows: Row[] = [];
  for (const set of await evalSets(opts.only)) {
    const c = await crawlSet(set);
    try {
      const row: Row = { set, pages: c.pages, crawlSeconds: c.seconds, searchMs: [] };
      console.error(`${set.name}: ${c.pages} pages crawled in ${c.seconds.toFixed(1)} s`);
      if (opts.relevance !== false) {
        // Judged at rest: the pass after the crawl's last change (indexes.ts prepare) done.
        await c.services.indexes.search(c.siteId, { query: "warm", perPage: 1 });
        await c.services.indexes.idle();
        row.plain = await relevance(c.services, c.siteId, set.plain, row.searchMs);
        row.typo = await relevance(c.services, c.siteId, set.typo, row.searchMs);
      }
      if (opts.answers !== false && set.faq) {
        row.faq = await scoreFaq(c.app, c.publicKey, set.faq, `${EVAL_DIR}/score_answers.py`);
      }
      if (opts.answers !== false && set.howto) {
        const reached = await crawledOnly(c.services, c.siteId, set.howto);
        if (reached) {
          row.howto = await scoreFaq(c.app, c.publicKey, reached, `${EVAL_DIR}/score_answers.py`);
          await Deno.remove(reached);
        }
      }
      rows.push(row);
    } finally {
      await c.close();
    }
  }
  await disposeSets();
  print(rows);
  return rows;
}

/** The figures the guard keeps of each set run. */
function figuresOf(rows: Row[]): Figures {
  const out: Figures = {};
  for (const r of rows) {
    const f: Figures[string] = {};
    if (r.plain) [f.mrr, f.p1] = [r.plain["MRR@10"], r.plain["P@1"]];
    if (r.typo) f.mrrTypo = r.typo["MRR@10"];
    if (r.faq) [f.f1, f.cite1] = [r.faq.f1, r.faq.cite1];
    if (r.howto) [f.howtoF1, f.howtoCite1] = [r.howto.f1, r.howto.cite1];
    out[r.set.name] = f;
  }
  return out;
}

/** Holds the run to the baseline; writes it with `--update`. Whether the run passes. */
async function guard(rows: Row[]): Promise<boolean> {
  const accept = Deno.args.find((a) => a.startsWith("--accept="))?.slice("--accept=".length);
  const baseline = await readBaseline();
  const now = figuresOf(rows);
  const { ok, lines } = verdict(drops(baseline, now), accept);
  for (const line of lines) console.log(line);
  if (ok && Deno.args.includes("--update")) {
    await Deno.writeTextFile(BASELINE_PATH, JSON.stringify(updated(baseline, now), null, 2) + "\n");
    console.log(`eval guard: baseline updated (${BASELINE_PATH.pathname})`);
  }
  return ok;
}

if (import.meta.main) {
  const only = Deno.args.filter((a) => !a.startsWith("--"));
  const rows = await evaluate({
    only,
    relevance: !Deno.args.includes("--answers-only"),
    answers: !Deno.args.includes("--relevance-only"),
  });
  const ok = await guard(rows);
  if (Deno.args.includes("--scale")) await atScale(EVAL_DIR);
  if (!ok) Deno.exit(1);
}
