/**
 * How answers read text: search's own analysis (tokens.ts: words, stop words and stems of
 * the page's language), less the filler a question says in passing ("how long does it
 * take"), which search keeps but which says nothing about which passage answers.
 */
import { fold, ownCopy, term, terms, words } from "../search/engine/mod.ts";

// Question filler that says nothing about the topic (English questions; other languages'
// stop words already drop theirs).
const FILLER = new Set(
  ("about also any all am been being could did does doing get got had he her him his just "
    .concat("know many may might more most much must please she should some tell us very ")
    .concat("would want need like take long make go come see thing way here well now yes ok ")
    .concat("hi hello thanks")).split(" "),
);

/** Words search splits into parts (shop.orders.refunds). */
const DOTTED = /[.-]/;
/**
 * Per language, a word as written → its content terms: one term (most words), "" for none,
 * or a list (a dotted name). Keyed as written, so a known word costs one lookup. Bounded: two
 * generations, the older dropped when the newer fills (under 2 MB per language).
 */
const known = new Map<string, { now: Map<string, Terms>; old: Map<string, Terms> }>();
type Terms = string | string[];
const KNOWN = 10_000;

/** The content terms of one word as written: its forms, filler dropped. */
function wordTerms(
  word: string,
  lang: string,
  memo: { now: Map<string, Terms>; old: Map<string, Terms> },
) {
  let out = memo.now.get(word);
  if (out !== undefined) return out;
  out = memo.old.get(word);
  if (out === undefined) {
    const lower = word.toLowerCase();
    if ((lower.length < 2 && lower.charCodeAt(0) < 128) || FILLER.has(lower)) out = "";
    else {
      const ts = (DOTTED.test(lower) ? terms(lower, lang) : [term(lower, lang)])
        .filter((t) => t && !FILLER.has(t));
      out = ts.length === 1 ? ts[0] : ts.length ? ts : "";
    }
  }
  if (memo.now.size >= KNOWN) [memo.old, memo.now] = [memo.now, new Map()];
  memo.now.set(ownCopy(word), out);
  return out;
}

/** The content terms of a text in a language, in order: indexed forms, filler dropped. */
export function contentTerms(text: string, lang = "en"): string[] {
  let memo = known.get(lang);
  if (!memo) known.set(lang, memo = { now: new Map(), old: new Map() });
  const out: string[] = [];
  for (const w of words(text, lang)) {
    const ts = wordTerms(w, lang, memo);
    if (typeof ts === "string") {
      if (ts) out.push(ts);
    } else out.push(...ts);
  }
  return out;
}

/** Every word of a text, folded, function words included: how a question is phrased. */
export function phrasing(text: string, lang = "en"): Set<string> {
  const out = new Set<string>();
  for (const w of words(text, lang)) out.add(fold(w.replace(/['’].*$/, "")));
  return out;
}

const QUESTION_START =
  /^(?:q(?:uestion)?\s*[:.]\s*|(?:how|what|why|when|where|which|who|whom|whose|can|could|do|does|did|is|are|should|will|would|may|must|shall|has|have)\b)/i;

/** A line that asks something: ends with "?", or is a short line opening like a question. */
export function questionShaped(line: string): boolean {
  const t = line.trim();
  if (!t || t.length > 240) return false;
  if (/\?["”’)]?$/u.test(t)) return true;
  return /^q(?:uestion)?\s*[:.]/i.test(t) && t.split(/\s+/).length <= 30;
}

/** A question's words without a "Q:" label. */
export const questionText = (line: string) =>
  line.trim().replace(/^q(?:uestion)?\s*[:.]\s*/i, "").trim();

/** Whether a heading reads like a question (for weighing it as one). */
export const asksLikeQuestion = (heading: string) =>
  questionShaped(heading) || QUESTION_START.test(heading.trim());
