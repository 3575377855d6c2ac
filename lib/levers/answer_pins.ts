/**
 * Answer pins: the owner fixes a question's answer. A pin matches a question as a curation
 * matches a query (the whole question, or a phrase it holds as whole words: normalise.ts);
 * a matching question gets the pinned answer as it stands, citing the pages it names, and
 * spends no credit. Checked entry by entry, and compiled into the lookup an answer makes.
 */
import { invalid } from "../errors.ts";
import { givenId, list, oneEachQuery, queryAndMatch, record, text, uniqueIds } from "./check.ts";
import { sitePaths } from "./curations.ts";
import { newId } from "../sites/keys.ts";
import { LIMITS } from "./limits.ts";
import { phraseLookup } from "./normalise.ts";
import type { AnswerPin } from "../wire_types.ts";

export type { AnswerPin };

function entry(value: unknown, param: string): AnswerPin & { given?: string } {
  const o = record(value, param, ["id", "query", "match", "answer", "sources"]);
  const given = givenId(o.id, `${param}.id`);
  const { query, match } = queryAndMatch(o, param, LIMITS.queryChars);
  const answer = text(o.answer, `${param}.answer`, LIMITS.answerChars).trim();
  if (!answer) throw invalid(`${param}.answer`, `${param}.answer must not be empty.`);
  return {
    id: given ?? newId("ans"),
    query,
    match,
    answer,
    sources: sitePaths(o.sources, `${param}.sources`, LIMITS.answerSources),
    given,
  };
}

/** The body of PUT …/answers as the list to store, or a 400 naming the first bad field. */
export function checkAnswerPins(body: unknown): AnswerPin[] {
  const o = record(body, "body", ["answers"]);
  const items = list(o.answers, "answers", LIMITS.answers);
  const out = items.map((v, i) => entry(v, `answers[${i}]`));
  uniqueIds(out.map((e) => e.given), "answers");
  oneEachQuery(
    out,
    "answers",
    (i, j) =>
      `answers[${i}] pins an answer for the same question as answers[${j}]: edit that one instead.`,
  );
  return out.map(({ given: _, ...a }) => a);
}

/** The lookup of a site's answer pins: the exact pin of a question, else the first that it holds. */
export function compileAnswerPins(
  pins: AnswerPin[],
): ((question: string) => AnswerPin | null) | undefined {
  if (!pins.length) return undefined;
  const lookup = phraseLookup(pins);
  return (question: string) => lookup(question)[0] ?? null;
}
