/** The built-in, offline answerer: picks the passages' sentences that best answer the question. */
import { squash, STOP_WORDS, WORD_RE } from "../search/text.ts";
import {
  MAX_ANSWER_CHARS,
  type SourceText,
  type SummarizeInput,
  type Summarizer,
  truncateAnswer,
} from "./summarizer.ts";

/** What the extractive answerer says when no sentence shares a term with the question. */
export const NOT_ANSWERED = "The site's pages do not seem to answer this question.";

// Question filler the shared index list keeps but that says nothing about the topic.
const FILLER = new Set(
  ("about also any all am been being could did does doing get got had he her him his just "
    .concat("know many may might more most much must please she should some tell us very ")
    .concat("would want need like take long make go come see thing way here well now yes ok ")
    .concat("hi hello thanks")).split(" "),
);

const MAX_SENTENCES = 5;
const MAX_SENTENCE_CHARS = 360;
const MIN_SENTENCE_CHARS = 20;
const LAMBDA = 0.7; // MMR: relevance against novelty
const RELATIVE_FLOOR = 0.55; // weaker sentences than this share of the best are left out
const SHORT_LEAD_WORDS = 7; // content words of a lead-in whose next sentence may inherit
const WORDS_PER_DELTA = 4;

/** A crude, consistent English stemmer: plural, -ed, -ing, -ly, doubled consonant, final e. */
export function stem(word: string): string {
  let s = word;
  if (s.length <= 3 || /\d/.test(s)) return s;
  if (/ie[sd]$/.test(s) && s.length > 4) s = s.slice(0, -3) + "y";
  else if (/(?:ss|x|z|ch|sh)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith("s") && !/(?:ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.length > 5 && s.endsWith("ing")) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith("ed")) s = s.slice(0, -2);
  else if (s.length > 4 && s.endsWith("ly")) s = s.slice(0, -2);
  if (s.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(s)) s = s.slice(0, -1);
  if (s.length > 4 && s.endsWith("e")) s = s.slice(0, -1);
  return s;
}

/** Content terms of a text: lowercased, stop words and filler dropped, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of text.toLowerCase().match(WORD_RE) ?? []) {
    if (w.length < 2 || STOP_WORDS.has(w) || FILLER.has(w)) continue;
    const s = stem(w);
    if (!FILLER.has(s)) out.push(s);
  }
  return out;
}

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
  let s = squash(raw).replace(/^(?:[-*•·–]|\d{1,2}[.)])\s+/u, "");
  if (s.length < MIN_SENTENCE_CHARS) return "";
  if (!/[.!?…"'”’)\]]$/u.test(s)) s += ".";
  return truncateAnswer(s, MAX_SENTENCE_CHARS).answer;
}

interface Sentence {
  n: number; // citation number of its source
  rank: number; // 0 for the best source
  pos: number; // index within its source
  text: string;
  words: number;
  terms: Set<string>;
}

/** Composes the extractive answer (pure, synchronous): the best sentences, each cited as [n]. */
export function extractiveAnswer(
  question: string,
  sources: SourceText[],
  history: SummarizeInput["history"] = [],
): string {
  // Query terms. The previous question helps a follow-up a little ("and for Business?"), and
  // stands in for one with no terms of its own ("how much is it?").
  const weight = new Map<string, number>();
  const asked = terms(question);
  const earlier = terms(history.findLast((t) => t.role === "user")?.content ?? "");
  for (const t of earlier) weight.set(t, asked.length ? 0.3 : 1);
  for (const t of asked) weight.set(t, 1);
  if (weight.size === 0) return NOT_ANSWERED;

  const sentences: Sentence[] = [];
  const titleCover: number[] = [];
  sources.forEach((src, rank) => {
    const titleTerms = new Set(terms(src.title));
    titleCover[rank] = [...weight.keys()].filter((t) => titleTerms.has(t)).length / weight.size;
    splitSentences(src.text).forEach((text, pos) => {
      const ts = terms(text);
      sentences.push({ n: src.n, rank, pos, text, words: ts.length, terms: new Set(ts) });
    });
  });

  // IDF over the sentences given: a term found everywhere says little about which one answers.
  const df = new Map<string, number>();
  for (const s of sentences) {
    for (const t of weight.keys()) if (s.terms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const idf = (t: string) => Math.log((sentences.length + 1) / ((df.get(t) ?? 0) + 0.5));
  let total = 0;
  for (const [t, w] of weight) total += w * idf(t);

  // Own relevance: the share of the question's (weighted) terms the sentence covers.
  const own = sentences.map((s) => {
    let hit = 0;
    let strong = false;
    for (const [t, w] of weight) {
      if (!s.terms.has(t)) continue;
      hit += w * idf(t);
      if (w === 1) strong = true;
    }
    return strong ? hit / total : 0; // a history term alone does not make an answer
  });

  const scored: { s: Sentence; rel: number; follows?: Sentence }[] = [];
  sentences.forEach((s, i) => {
    // A sentence with no term of its own, after a short matching lead-in, often carries the
    // substance ("Installing takes two minutes. Copy the script tag…"): it inherits relevance.
    const lead = i > 0 && sentences[i - 1].rank === s.rank ? sentences[i - 1] : undefined;
    const prev = lead && lead.words <= SHORT_LEAD_WORDS ? own[i - 1] : 0;
    const follows = own[i] > 0 || prev === 0 ? undefined : lead;
    let rel = follows ? 0.7 * prev : own[i];
    if (rel === 0) return;
    rel *= 1 / (1 + 0.08 * s.rank); // retrieval already ranked the passages
    rel *= 1 + 0.15 / (1 + s.pos); // pages tend to say the main thing first
    rel *= 1 + 0.2 * titleCover[s.rank]; // a passage titled after the question is about it
    if (s.words < 4) rel *= 0.7; // fragments read badly
    else if (s.words > 45) rel *= 0.85;
    scored.push({ s, rel, follows });
  });
  if (!own.some((r) => r > 0)) return NOT_ANSWERED;

  const best = Math.max(...scored.map((x) => x.rel));
  const pool = scored.filter((x) => x.rel >= RELATIVE_FLOOR * best);
  const picked: Sentence[] = [];
  let length = 0;
  while (pool.length && picked.length < MAX_SENTENCES) {
    let bi = -1;
    let bv = -Infinity;
    for (let i = 0; i < pool.length; i++) {
      const follows = pool[i].follows;
      if (follows && !picked.includes(follows)) continue; // elaboration only after its lead
      const sim = Math.max(0, ...picked.map((p) => jaccard(p.terms, pool[i].s.terms)));
      if (sim > 0.7) continue; // near-duplicate (shared boilerplate, repeated pages)
      // Sites repeat a fact across pages in other words: skip a sentence that adds little new.
      if (picked.length && novelty(pool[i].s.terms, picked) < MIN_NOVELTY) continue;
      const v = LAMBDA * pool[i].rel - (1 - LAMBDA) * sim;
      if (v > bv) [bi, bv] = [i, v];
    }
    if (bi < 0) break;
    const [{ s }] = pool.splice(bi, 1);
    const cost = cited(s).length + (picked.length ? 1 : 0);
    if (length + cost > MAX_ANSWER_CHARS) continue;
    picked.push(s);
    length += cost;
  }

  // Read in page order: by source rank, then position within the source.
  picked.sort((a, b) => a.rank - b.rank || a.pos - b.pos);
  return picked.map(cited).join(" ");
}

const MIN_NOVELTY = 0.35;
const cited = (s: Sentence) => `${s.text} [${s.n}]`;

/** Share of a sentence's terms that no picked sentence has yet. */
function novelty(terms: Set<string>, picked: Sentence[]): number {
  if (terms.size === 0) return 0;
  let fresh = 0;
  for (const t of terms) if (!picked.some((p) => p.terms.has(t))) fresh++;
  return fresh / terms.size;
}

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
