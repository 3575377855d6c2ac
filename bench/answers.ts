/**
 * Answer quality on a real site's own FAQ: the Django 3.2 documentation (Debian's
 * python-django-doc) served on 127.0.0.1 and crawled whole, every FAQ question asked
 * through POST /api/summarize (streamed), scored with shared/eval/score_answers.py.
 * Prints F1, recall, precision, cite@1, answer length and first-delta latency.
 *
 *   deno task eval-answers [path/to/eval]      (default $EVAL_DIR, else ../shared/eval)
 */
import { createApp } from "../app.ts";
import { startCrawlJob } from "../lib/crawl/jobs.ts";
import { serveDir } from "./crawl.ts";
import { askStreamed } from "./summarize.ts";
import { ms, percentile } from "./corpus.ts";

const ROOT = "/usr/share/doc/python-django-doc/html";
const EVAL = Deno.args[0] ?? Deno.env.get("EVAL_DIR") ??
  new URL("../../shared/eval", import.meta.url).pathname;
/** The eval README: leave out the pages that index the whole site. */
const SKIP = /(^|\/)(genindex[^/]*|py-modindex|search)\.html$/;

interface Judgment {
  id: string;
  query: string;
}

export async function evaluateAnswers() {
  const docs = serveDir(ROOT);
  const kv = await Deno.openKv(":memory:");
  const { app, services: s } = createApp({
    kv,
    log: () => {},
    summaryIpLimitPerMinute: 1_000_000,
    crawl: { allowLoopback: true, delayMs: 0 },
  });
  const { site, publicKey } = await s.sites.create({ name: "Django docs", plan: "enterprise" });
  const started = await startCrawlJob(s, site, { url: `${docs.origin}/index.html` }, {
    tuning: { concurrency: 2, workers: 4 },
  });
  await started.done;
  for await (const p of s.pages.all(site.id)) {
    if (SKIP.test(p.url)) await s.pages.remove(site.id, p.url);
  }
  const { pages } = await s.pages.version(site.id);
  const judgments: Judgment[] = JSON.parse(
    await Deno.readTextFile(`${EVAL}/django_faq.json`),
  ).judgments;

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/api/summarize`;
  const answers: Record<string, { answer: string; sources: string[] }> = {};
  const firsts: number[] = [], lengths: number[] = [];
  await askStreamed(url, publicKey, "warm up the index"); // first search builds the index
  for (const j of judgments) {
    const a = await askStreamed(url, publicKey, j.query);
    answers[j.id] = { answer: a.answer, sources: a.sources };
    firsts.push(a.first);
    if (Deno.env.get("SHOW_SLOW") && a.first > 40) console.log(j.id, a.first.toFixed(0));
    lengths.push(a.answer.length);
  }
  await server.shutdown();
  kv.close();
  await docs.server.shutdown();

  const path = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(path, JSON.stringify(answers, null, 1));
  const out = await new Deno.Command("python3", {
    args: [`${EVAL}/score_answers.py`, `${EVAL}/django_faq.json`, path],
  }).output();
  const score = JSON.parse(new TextDecoder().decode(out.stdout));
  if (Deno.env.get("KEEP_ANSWERS")) console.log(`(answers kept in ${path})`);
  else await Deno.remove(path);
  console.log(
    `\n## AI answers: ${judgments.length} FAQ questions of the Django docs, ${pages} pages crawled`,
  );
  console.log(
    "| F1 | recall | precision | cite@1 | cite | answer length (median) | first delta p50 / p99 |",
  );
  console.log("|---|---|---|---|---|---|---|");
  console.log(
    `| ${score.f1.toFixed(2)} | ${score.recall.toFixed(2)} | ${score.precision.toFixed(2)} | ` +
      `${score.cite1.toFixed(2)} | ${score.cite.toFixed(2)} | ${percentile(lengths, 50)} | ` +
      `${ms(percentile(firsts, 50))} / ${ms(percentile(firsts, 99))} |`,
  );
}

if (import.meta.main) await evaluateAnswers();
