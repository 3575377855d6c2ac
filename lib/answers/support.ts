/**
 * Answers you can check: each sentence of an answer, built-in or from a model, is kept only
 * if one passage retrieved for the question supports it. A passage supports a sentence when
 * it holds every content term of the sentence (search's own analysis of the page's language,
 * answers/analysis.ts), every number and every name as written ("frob_limit", "v2.1",
 * "QUEUES"), and says it the same way: a sentence that negates is supported only by a
 * passage sentence that negates, and one that does not only by one that does not. A citation
 * `[n]` is moved to the passage that supports its sentence, or removed; a sentence of general
 * knowledge (a site that allows it) is not checked against the site.
 */
import { contentTerms } from "./analysis.ts";
import { citedOnly } from "./citations.ts";
import type { SourceText } from "./summarizer.ts";

/** How the check went: sentences read, supported, removed. */
export interface SupportCheck {
  sentences: number;
  supported: number;
  removed: number;
}

export const NO_CHECK: Readonly<SupportCheck> = Object.freeze({
  sentences: 0,
  supported: 0,
  removed: 0,
});

/** Citations as answers write them, one or several: "[2]", "[1, 3]", "[1][2]". */
const CITATIONS = /\[\d{1,3}(?:\s*,\s*\d{1,3})*\](?:\s*\[\d{1,3}(?:\s*,\s*\d{1,3})*\])*/g;
const LEADING_CITATIONS = /^\s*(?:\[\d{1,3}(?:\s*,\s*\d{1,3})*\]\s*)+/;
/**
 * A run of letters and digits with the marks that join a name or a number inside it
 * ("frob_limit", "v2.1", "1,600", "12:00"); unambiguous, so read in linear time.
 */
const TOKEN = /[\p{L}\p{N}]+(?:[_.,:/-][\p{L}\p{N}]+)*/gu;
/** Tokens longer than this are no number or name a sentence states (a hash, a blob). */
const MAX_TOKEN = 64;

/** Words that negate what a sentence says, per language (English where a language has none). */
const NEGATIONS: Record<string, RegExp> = {
  en: /\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|without|\w+n['’]t)\b/i,
  de: /\b(?:nicht|kein\w*|nie|niemals|nichts|ohne|weder)\b/i,
  fr: /\b(?:ne|n['’]|pas|jamais|aucun\w*|rien|sans|ni)\b/i,
  es: /\b(?:no|nunca|jamás|ningun\w*|nada|sin|ni)\b/i,
  it: /\b(?:non|mai|nessun\w*|niente|nulla|senza|né)\b/i,
  nl: /\b(?:niet|geen|nooit|niets|zonder|noch)\b/i,
  pt: /(?:^|[^\p{L}])(?:não|nunca|jamais|nenhum\w*|nada|sem|nem)(?=[^\p{L}]|$)/iu,
  sv: /\b(?:inte|ej|aldrig|ingen|inget|inga|utan)\b/i,
  pl: /(?:^|[^\p{L}])(?:nie|nigdy|żaden|żadna|żadne|bez|ani)(?=[^\p{L}]|$)/iu,
  ru: /(?:^|[^\p{L}])(?:не|нет|никогда|ни|без)(?=[^\p{L}]|$)/iu,
};
const negates = (text: string, lang: string) => (NEGATIONS[lang] ?? NEGATIONS.en).test(text);

/** A passage as the check reads it: its language, terms, numbers and names, and its sentences. */
interface Read {
  n: number;
  lang: string;
  terms: Set<string>;
  written: Set<string>;
  sentences: { terms: Set<string>; negates: boolean }[];
}

/** What a sentence must find in one passage. */
interface Needs {
  terms: string[];
  written: string[];
  negates: boolean;
}

const lower = (s: string) => s.toLowerCase();

/**
 * Numbers and names of a text as written, lowercased: tokens with a digit, joined by _ . -,
 * with a capital inside ("getItem") or in capitals ("QUEUES").
 */
function writtenOf(text: string): string[] {
  const out: string[] = [];
  for (const [t] of text.matchAll(TOKEN)) {
    if (t.length > MAX_TOKEN) continue;
    const name = /\p{N}|[_.-]/u.test(t) || /\p{Ll}\p{Lu}/u.test(t) || /^\p{Lu}{2,}$/u.test(t);
    if (name) out.push(lower(t.replace(/[.,:]+$/, "")));
  }
  return out;
}

/** Reads the passages once for every sentence of an answer. */
export class SupportChecker {
  readonly #passages: Read[];
  /** The language sentences are read in: the passages' (an answer is written in theirs). */
  readonly lang: string;

  constructor(passages: readonly SourceText[], lang = passages[0]?.lang ?? "en") {
    this.lang = lang;
    this.#passages = passages.map((p) => {
      const whole = `${p.title}\n${p.heading ?? ""}\n${p.about ?? ""}\n${p.text}`;
      const own = p.lang ?? lang;
      return {
        n: p.n,
        lang: own,
        terms: new Set(contentTerms(whole, own)),
        written: new Set(writtenOf(whole)),
        sentences: sentencesOf(whole, own).map((s) => ({
          terms: new Set(contentTerms(s, own)),
          negates: negates(s, own),
        })),
      };
    });
  }

  /**
   * The passages that support a sentence (their numbers, best first: those it cites first),
   * or null when it has nothing to check (no content word: "Yes."). The sentence is read in
   * each passage's language, as that passage was.
   */
  supporters(sentence: string): number[] | null {
    const plain = sentence.replace(CITATIONS, " ");
    const written = [...new Set(writtenOf(plain))];
    const byLang = new Map<string, Needs>();
    const needsIn = (lang: string): Needs => {
      let needs = byLang.get(lang);
      if (!needs) {
        needs = {
          terms: [...new Set(contentTerms(plain, lang))],
          written,
          negates: negates(plain, lang),
        };
        byLang.set(lang, needs);
      }
      return needs;
    };
    const first = needsIn(this.lang);
    if (!first.terms.length && !written.length) return null;
    const cited = citedIn(sentence);
    const out = this.#passages.filter((p) => supports(p, needsIn(p.lang))).map((p) => p.n);
    return out.sort((a, b) => rankOf(cited, a) - rankOf(cited, b));
  }
}

const rankOf = (cited: number[], n: number) => {
  const i = cited.indexOf(n);
  return i < 0 ? cited.length : i;
};

/** Whether one passage holds all a sentence needs, said the same way. */
function supports(p: Read, needs: Needs): boolean {
  if (!needs.terms.every((t) => p.terms.has(t))) return false;
  if (!needs.written.every((w) => p.written.has(w))) return false;
  // Where the passage says it (its sentences holding half the terms or more, else any), one
  // must negate as the sentence does. Sentences are cut differently in answers and pages,
  // so one of the passage's may hold only a part of an answer's.
  const half = Math.max(1, Math.ceil(needs.terms.length / 2));
  const holding = (least: number) =>
    p.sentences.filter((s) => needs.terms.filter((t) => s.terms.has(t)).length >= least);
  let saying = holding(half);
  if (!saying.length) saying = holding(1);
  if (!saying.length) return !needs.negates;
  return saying.some((s) => s.negates === needs.negates);
}

/** The source numbers a sentence cites, in order. */
function citedIn(sentence: string): number[] {
  const out: number[] = [];
  for (const m of sentence.matchAll(CITATIONS)) {
    for (const d of m[0].matchAll(/\d{1,3}/g)) out.push(Number(d[0]));
  }
  return out;
}

/**
 * A text's sentences as written, each with its trailing space and the citations that follow
 * it ("It works. [1] Then…" → "It works. [1] ", "Then…"), so they join back into the text.
 */
export function sentencesOf(text: string, lang = "en"): string[] {
  const out: string[] = [];
  for (const { segment } of segmenter(lang).segment(text)) {
    const lead = LEADING_CITATIONS.exec(segment);
    if (lead && out.length) {
      out[out.length - 1] += lead[0];
      if (segment.length > lead[0].length) out.push(segment.slice(lead[0].length));
    } else out.push(segment);
  }
  return out;
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(lang: string): Intl.Segmenter {
  let s = segmenters.get(lang);
  if (!s) {
    try {
      s = new Intl.Segmenter(lang, { granularity: "sentence" });
    } catch {
      s = new Intl.Segmenter("en", { granularity: "sentence" });
    }
    segmenters.set(lang, s);
  }
  return s;
}

/**
 * One sentence checked: kept with its citations moved to a passage that supports it (or
 * removed where none does), or dropped (null). `unchecked`: general knowledge, kept as it is.
 */
export function checkSentence(
  checker: SupportChecker,
  sentence: string,
  unchecked = false,
): { text: string; supported: boolean } | null {
  if (unchecked || !/[\p{L}\p{N}]/u.test(sentence.replace(CITATIONS, ""))) {
    return { text: sentence, supported: false };
  }
  const by = checker.supporters(sentence);
  if (by === null) return { text: sentence, supported: false };
  if (!by.length) return null;
  const cited = citedIn(sentence);
  if (!cited.length || cited.every((n) => by.includes(n))) {
    return { text: sentence, supported: true };
  }
  // Citations of passages that do not say it go; where none is left, the first that does.
  let left = 0;
  let text = sentence.replace(CITATIONS, (group) => {
    const nums = [...group.matchAll(/\d{1,3}/g)].map((d) => Number(d[0])).filter((n) =>
      by.includes(n)
    );
    left += nums.length;
    return nums.length ? `[${nums.join(", ")}]` : "";
  }).replace(/ +([.,;:!?])/g, "$1").replace(/ {2,}/g, " ");
  if (!left) text = text.replace(/\s*([.!?…:]*)(\s*)$/u, ` [${by[0]}]$1$2`);
  return { text, supported: true };
}

/** A whole answer checked: what is kept of it, and how the check went. */
export function checkAnswer(
  checker: SupportChecker,
  text: string,
  { unchecked }: { unchecked?: (sentence: string) => boolean } = {},
): { answer: string; check: SupportCheck } {
  let kept = "", sentences = 0, supported = 0, removed = 0;
  let general = false;
  for (const s of sentencesOf(text, checker.lang)) {
    if (!/[\p{L}\p{N}]/u.test(s)) {
      kept += s;
      continue;
    }
    general ||= unchecked?.(s) ?? false;
    sentences++;
    const c = checkSentence(checker, s, general);
    if (!c) {
      removed++;
      continue;
    }
    if (c.supported) supported++;
    kept += c.text;
  }
  return { answer: kept.trim(), check: { sentences, supported, removed } };
}

/**
 * A whole answer checked against the passages it was made from and renumbered to the sources
 * its kept sentences cite; `answered` when a sentence is supported and cites a source.
 */
export function checkedAnswer<T>(text: string, passages: readonly SourceText[], sources: T[]) {
  const { answer, check } = checkAnswer(new SupportChecker(passages), text);
  const cited = citedOnly(answer, sources);
  return { ...cited, check, answered: check.supported > 0 && cited.sources.length > 0 };
}
