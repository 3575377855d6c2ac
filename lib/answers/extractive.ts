/** The built-in, offline answerer: picks the passages' sentences that best answer the question. */
import { squash } from "../search/engine/mod.ts";
import { contentTerms } from "./analysis.ts";
import {
  MAX_ANSWER_CHARS,
  type SourceText,
  type SummarizeInput,
  type Summarizer,
  truncateAnswer,
} from "./summarizer.ts";

/** What the extractive answerer says when no sentence shares a term with the question. */
export const NOT_ANSWERED = "The site's pages do not seem to answer this question.";

const MAX_SENTENCE_CHARS = 360;
const MIN_SENTENCE_CHARS = 20;
const WORDS_PER_DELTA = 4;

// Words after which a full stop does not end the sentence.
const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|st|no|approx|incl|inc|ltd)\.$/i;

/** Splits passage text into sentences: at line breaks, and at . ! ? followed by a capital. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  // Footnote marks like "[3]" in page text would read as our citations: drop them.
  for (const block of text.replace(/\[\d{1,3}\]/g, "").split(/\n+/)) {
    const parts = block.split(/(?<=[.!?…]["'”’)\]]?)\s+(?=["'“‘(\[]?[\p{Lu}\p{N}])/u);
    let carry = "";
    for (const part of parts) {
      const joined = carry ? `${carry} ${part}` : part;
      if (ABBREVIATION.test(joined)) {
        carry = joined;
        continue;
      }
      carry = "";
      const s = tidy(joined);
      if (s) out.push(s);
    }
    if (carry) {
      const s = tidy(carry);
      if (s) out.push(s);
    }
  }
  return out;
}

/** Drops list markers and extra spaces; gives a sentence an ending; cuts a very long one. */
function tidy(raw: string): string {
  let s = squash(raw).replace(/^(?:[-*•·–]|\d{1,2}[.)])\s+/u, "")
    // Inline code set apart by the extractor: "set to True ." reads "set to True.".
    .replace(/\s+([.,;:!?)\]”’])(?=[\s.,;:!?)\]]|$)/gu, "$1").replace(/([(\[“‘])\s+/gu, "$1");
  // A short fragment (a menu, a label) is dropped; a short sentence ("Yes.") is an answer.
  if (s.length < MIN_SENTENCE_CHARS && !/^\p{Lu}.*[.!?]$/u.test(s)) return "";
  if (!/[.!?…:"'”’)\]]$/u.test(s)) s += ".";
  return truncateAnswer(s, MAX_SENTENCE_CHARS).answer;
}

/** A line of program text rather than prose: prompts, statements, or mostly symbols. */
export function looksLikeCode(line: string): boolean {
  const t = line.trim();
  if (
    /^(?:>>>|\.\.\.|\$ |#!|\/\/|<\/?[a-z][\w-]*[\s>]|[{}\[\]();]|import |from [\w.]+ import )/.test(
      t,
    )
  ) {
    return true;
  }
  // (Tests of a line's end read its last characters: a pattern ending in "$" would try every
  // position of the line.)
  if (
    (t.endsWith(";") || t.endsWith("{") || /^\w+(?:\.\w+)*\s*=\s*\S/.test(t)) &&
    !/\s\w+\s\w+\s\w+\s/.test(t)
  ) return true;
  // A call or an index ("print(x[a])") on a line that does not end like a sentence, or that
  // says too few words to be one ("Yes, use result.revoke():" is a sentence).
  if (
    (t.includes("(") || t.includes("[")) && /[\w.]\(.*\)|\w\[[^\]]*\]/.test(t) &&
    !(/[.!?]["”’)]?$/u.test(t.slice(-2)) ||
      (t.endsWith(":") && (t.match(/(?:^|\s)\p{L}{2,}/gu) ?? []).length >= 4))
  ) return true;
  if (!t.length) return false;
  let symbols = 0;
  for (let i = 0; i < t.length; i++) if (SYMBOLS.has(t.charCodeAt(i))) symbols++;
  // Counting words only for a line dense in symbols: most lines are not.
  if (symbols / t.length <= 0.1) return false;
  return symbols > (t.match(/\p{L}{2,}/gu) ?? []).length;
}

/** Characters that mark program text. */
const SYMBOLS = new Set([..."{}()[];=<>_/\\|'\"`"].map((c) => c.charCodeAt(0)));

interface Sentence {
  n: number; // citation number of its source
  src: number; // index of its source in the input
  pos: number; // index within its source
  text: string;
  terms: Set<string>;
  /** Ends with ":" and so needs the line after it. */
  opens: boolean;
}

/** Code shown inline after the sentence that announces it: short lines, a few of them. */
const INLINE_CODE_CHARS = 100;
const INLINE_CODE_LINES = 2;

/**
 * The prose sentences of a source text in reading order. Code is left out, except a
 * line or two of short code right after the sentence announcing it ("purge them with:"),
 * which the sentence then shows inline; a lead-in whose code is left out is dropped too.
 */
function proseSentences(src: SourceText, index: number, lang: string): Sentence[] {
  const out: Sentence[] = [];
  const lines = src.text.split(/\n+/);
  let inlined = 0;
  lines.forEach((line, i) => {
    if (looksLikeCode(line)) {
      const last = out.at(-1);
      const code = line.trim().replace(/`/g, "").replace(/^(?:>>>|\$)\s+/, "");
      if (
        last && (last.opens || inlined) && inlined < INLINE_CODE_LINES &&
        code.length <= INLINE_CODE_CHARS
      ) {
        last.text = `${last.text}${inlined ? "; " : " "}\`${code}\``;
        for (const t of contentTerms(code, lang)) last.terms.add(t);
        last.opens = false;
        inlined++;
        return;
      }
      // "Then do this:" before code that is left out would dangle.
      if (last?.opens) out.pop();
      return;
    }
    inlined = 0;
    for (const text of splitSentences(line)) {
      out.push({
        n: src.n,
        src: index,
        pos: out.length,
        text,
        terms: new Set(contentTerms(text, lang)),
        opens: text.endsWith(":") && i + 1 < lines.length,
      });
    }
  });
  while (out.at(-1)?.opens || out.at(-1)?.text.endsWith(":")) out.pop();
  return out;
}

/** How much of the question (weighted, rarer terms more) a set of terms covers, 0 to 1. */
function coverer(weight: Map<string, number>, df: Map<string, number>, count: number) {
  const idf = (t: string) => Math.log((count + 1) / ((df.get(t) ?? 0) + 0.5));
  // Only words some sentence has count: the rest no source can answer anyway.
  let total = 0;
  for (const [t, w] of weight) if (w === 1 && df.has(t)) total += idf(t);
  return (has: (t: string) => boolean) => {
    let hit = 0;
    for (const [t, w] of weight) if (w === 1 && has(t)) hit += idf(t);
    return total ? hit / total : 0;
  };
}

/**
 * Composes the extractive answer (pure, synchronous). The lead source (the best section)
 * speaks first, its sentences in reading order; a later source adds a sentence only where
 * it answers a part of the question the answer has not covered yet. Each run of sentences
 * from one source ends with its citation [n].
 */
export function extractiveAnswer(
  question: string,
  sources: SourceText[],
  history: SummarizeInput["history"] = [],
): string {
  // A follow-up with no terms of its own ("how much is it?") stands on the previous question.
  // Read as search reads the lead page's language.
  const lang = sources[0]?.lang ?? "en";
  const terms = (text: string) => contentTerms(text, lang);
  const weight = new Map<string, number>();
  const asked = terms(question);
  const earlier = terms(history.findLast((t) => t.role === "user")?.content ?? "");
  for (const t of earlier) weight.set(t, asked.length ? 0.3 : 1);
  for (const t of asked) weight.set(t, 1);
  if (weight.size === 0 || sources.length === 0) return NOT_ANSWERED;

  const perSource = sources.map((src, i) => proseSentences(src, i, lang));
  const all = perSource.flat();
  // Titles and headings count as text here: what they name, their sources answer.
  const heads = sources.map((src) =>
    new Set(terms(`${src.title} ${src.heading ?? ""} ${src.about ?? ""}`))
  );
  const df = new Map<string, number>();
  for (const set of [...all.map((s) => s.terms), ...heads]) {
    for (const t of weight.keys()) if (set.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const cover = coverer(weight, df, all.length);
  const rel = (s: Sentence) => cover((t) => s.terms.has(t));

  // The lead: the best-ranked source when retrieval scored them; else the one that covers most.
  const sourceCover = sources.map((_, i) =>
    cover((t) => heads[i].has(t) || perSource[i].some((s) => s.terms.has(t)))
  );
  let lead = 0;
  if (sources[0].score === undefined) {
    sourceCover.forEach((c, i) => {
      if (c > sourceCover[lead] + 1e-9) lead = i;
    });
  }
  if (sourceCover[lead] === 0 || perSource[lead].length === 0) return NOT_ANSWERED;

  // Read the lead from its start, or, deep in a long section, from its best sentence.
  const leadSentences = perSource[lead];
  const heading = new Set(terms(sources[lead].heading ?? ""));
  const named = asked.filter((t) => heading.has(t)).length >= asked.length / 2;
  let bestAt = 0;
  leadSentences.forEach((s, i) => {
    if (rel(s) > rel(leadSentences[bestAt]) + 1e-9) bestAt = i;
  });
  let from = named || bestAt < 3 ? 0 : bestAt;
  if (from > 0 && leadSentences[from - 1].opens) from--;
  const picked: Sentence[] = [];
  let length = 0;
  for (const s of leadSentences.slice(from)) {
    const cost = s.text.length + 1;
    if (picked.length && (length >= LEAD_CHARS || length + cost > MAX_LEAD_CHARS)) break;
    picked.push(s);
    length += cost;
  }
  while (picked.length > 1 && picked.at(-1)!.opens) length -= picked.pop()!.text.length + 1;

  // Other sources, best first: a sentence that answers what the lead left out.
  // What the lead's page and section say they are about is covered too.
  const has = (t: string) => heads[lead].has(t) || picked.some((p) => p.terms.has(t));
  let extras = 0;
  for (let i = 0; i < sources.length && extras < MAX_EXTRA; i++) {
    if (i === lead) continue;
    const gain = (s: Sentence) => cover((t) => s.terms.has(t) && !has(t));
    const best = perSource[i].filter((s) => !s.opens && gain(s) >= MIN_GAIN)
      .sort((a, b) => gain(b) - gain(a) || rel(b) - rel(a))[0];
    if (!best || length + best.text.length + 6 > MAX_ANSWER_CHARS) continue;
    if (picked.some((p) => jaccard(p.terms, best.terms) > 0.7)) continue;
    picked.push(best);
    length += best.text.length + 6;
    extras++;
  }

  let out = "";
  picked.forEach((s, i) => {
    out += (i ? " " : "") + s.text;
    if (picked[i + 1]?.n !== s.n) out += ` [${s.n}]`;
  });
  return truncateAnswer(out).answer;
}

/** The lead section is read until the answer has about this many characters… */
const LEAD_CHARS = 600;
/** …and never past this many. */
const MAX_LEAD_CHARS = 900;
const MAX_EXTRA = 2;
/** Share of the question a later source's sentence must newly cover to be added. */
const MIN_GAIN = 0.25;

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Source numbers cited in an answer as [n] or [n, m], ascending and without repeats. */
export function citedSources(answer: string): number[] {
  const found = new Set<number>();
  for (const m of answer.matchAll(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g)) {
    for (const n of m[1].split(",")) found.add(Number(n));
  }
  return [...found].sort((a, b) => a - b);
}

/** The offline summarizer: an extractive answer streamed a few words at a time. */
export function createExtractiveSummarizer(): Summarizer {
  return {
    name: "extractive",
    compose: (input) => extractiveAnswer(input.question, input.sources, input.history),
    async *stream(input: SummarizeInput): AsyncIterable<string> {
      input.signal.throwIfAborted();
      const answer = extractiveAnswer(input.question, input.sources, input.history);
      const words = answer.match(/\S+\s*/g) ?? [];
      for (let i = 0; i < words.length; i += WORDS_PER_DELTA) {
        input.signal.throwIfAborted();
        yield words.slice(i, i + WORDS_PER_DELTA).join("");
      }
    },
  };
}
