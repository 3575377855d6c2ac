/**
 * Answer quality on a site's own FAQ: every FAQ question asked through POST /api/summarize
 * (streamed) on a crawled site, scored with shared/eval/score_answers.py. Used by
 * bench/eval.ts for every set; alone (`deno task eval-answers`) it runs the FAQ part of
 * every set and prints the same table.
 */
import type { Hono } from "hono";
import type { AppEnv } from "../lib/http/middleware.ts";
import { askStreamed } from "./summarize.ts";
import { percentile } from "./corpus.ts";
import { crawlSet, disposeSets, EVAL_DIR, evalSets } from "./eval_sets.ts";

export interface FaqJudgment {
  id: string;
  query: string;
  page: string;
  gold: string;
}

export interface FaqScore {
  n: number;
  f1: number;
  recall: number;
  precision: number;
  cite1: number;
  cite: number;
  /** Time to the first streamed delta of each answer, in ms. */
  firsts: number[];
}

/** Asks every question of a FAQ set on a site and scores the answers. */
export async function scoreFaq(
  app: Hono<AppEnv>,
  publicKey: string,
  faqPath: string,
  scorer: string,
): Promise<FaqScore> {
  const judgments: FaqJudgment[] = JSON.parse(await Deno.readTextFile(faqPath)).judgments;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/api/summarize`;
  const answers: Record<string, { answer: string; sources: string[] }> = {};
  const firsts: number[] = [];
  try {
    await askStreamed(url, publicKey, "warm up the index"); // the first search builds the index
    for (const j of judgments) {
      const a = await askStreamed(url, publicKey, j.query);
      answers[j.id] = { answer: a.answer, sources: a.sources };
      firsts.push(a.first);
    }
  } finally {
    await server.shutdown();
  }
  const path = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(path, JSON.stringify(answers, null, 1));
  const out = await new Deno.Command("python3", { args: [scorer, faqPath, path] }).output();
  // KEEP_ANSWERS=dir keeps each answers file, to read the misses.
  const keep = Deno.env.get("KEEP_ANSWERS");
  if (keep) await Deno.copyFile(path, `${keep}/${faqPath.split("/").pop()}`);
  await Deno.remove(path);
  return { ...JSON.parse(new TextDecoder().decode(out.stdout)), firsts };
}

/** The FAQ answers of every set (or of those named), one row each. */
export async function evaluateAnswers(only: string[] = []) {
  console.log(
    "\n| set | pages | FAQ n | F1 | recall | precision | cite@1 | cite | first delta p50 / p99 ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const set of await evalSets(only)) {
    if (!set.faq) continue;
    const c = await crawlSet(set);
    try {
      const s = await scoreFaq(c.app, c.publicKey, set.faq, `${EVAL_DIR}/score_answers.py`);
      const firsts = [...s.firsts].sort((a, b) => a - b);
      console.log(
        `| ${set.name} | ${c.pages} | ${s.n} | ` +
          [s.f1, s.recall, s.precision, s.cite1, s.cite].map((v) => v.toFixed(3)).join(" | ") +
          ` | ${percentile(firsts, 50).toFixed(1)} / ${percentile(firsts, 99).toFixed(1)} |`,
      );
    } finally {
      await c.close();
    }
  }
  await disposeSets();
}

if (import.meta.main) await evaluateAnswers(Deno.args);
