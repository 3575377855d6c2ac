/**
 * The one tokenizer of pages and queries, for any script: words are runs of
 * letters, marks and digits (`_` and apostrophes stay inside a word, so
 * get_object_or_404 is one); Chinese, Japanese and Thai runs are split by
 * Intl.Segmenter; each word is lowercased, stemmed and stripped of stop words
 * by its page's language (Orama's own stemmer and stop-word packages), then
 * folded (diacritics dropped) so "café" finds "cafe". Tokens are counted, not
 * deduplicated: ranking needs real term frequencies.
 */
import { stemmer as arabic } from "@orama/stemmers/arabic";
import { stemmer as armenian } from "@orama/stemmers/armenian";
import { stemmer as bulgarian } from "@orama/stemmers/bulgarian";
import { stemmer as danish } from "@orama/stemmers/danish";
import { stemmer as dutch } from "@orama/stemmers/dutch";
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as finnish } from "@orama/stemmers/finnish";
import { stemmer as french } from "@orama/stemmers/french";
import { stemmer as german } from "@orama/stemmers/german";
import { stemmer as greek } from "@orama/stemmers/greek";
import { stemmer as hungarian } from "@orama/stemmers/hungarian";
import { stemmer as indonesian } from "@orama/stemmers/indonesian";
import { stemmer as irish } from "@orama/stemmers/irish";
import { stemmer as italian } from "@orama/stemmers/italian";
import { stemmer as lithuanian } from "@orama/stemmers/lithuanian";
import { stemmer as nepali } from "@orama/stemmers/nepali";
import { stemmer as norwegian } from "@orama/stemmers/norwegian";
import { stemmer as portuguese } from "@orama/stemmers/portuguese";
import { stemmer as romanian } from "@orama/stemmers/romanian";
import { stemmer as russian } from "@orama/stemmers/russian";
import { stemmer as serbian } from "@orama/stemmers/serbian";
import { stemmer as spanish } from "@orama/stemmers/spanish";
import { stemmer as swedish } from "@orama/stemmers/swedish";
import { stemmer as tamil } from "@orama/stemmers/tamil";
import { stemmer as turkish } from "@orama/stemmers/turkish";
import { stemmer as ukrainian } from "@orama/stemmers/ukrainian";
import { stopwords as arStop } from "@orama/stopwords/arabic";
import { stopwords as bgStop } from "@orama/stopwords/bulgarian";
import { stopwords as daStop } from "@orama/stopwords/danish";
import { stopwords as nlStop } from "@orama/stopwords/dutch";
import { stopwords as fiStop } from "@orama/stopwords/finnish";
import { stopwords as frStop } from "@orama/stopwords/french";
import { stopwords as deStop } from "@orama/stopwords/german";
import { stopwords as elStop } from "@orama/stopwords/greek";
import { stopwords as huStop } from "@orama/stopwords/hungarian";
import { stopwords as idStop } from "@orama/stopwords/indonesian";
import { stopwords as itStop } from "@orama/stopwords/italian";
import { stopwords as jaStop } from "@orama/stopwords/japanese";
import { stopwords as enStop } from "@orama/stopwords/english";
import { stopwords as zhStop } from "@orama/stopwords/mandarin";
import { stopwords as noStop } from "@orama/stopwords/norwegian";
import { stopwords as ptStop } from "@orama/stopwords/portuguese";
import { stopwords as roStop } from "@orama/stopwords/romanian";
import { stopwords as ruStop } from "@orama/stopwords/russian";
import { stopwords as esStop } from "@orama/stopwords/spanish";
import { stopwords as svStop } from "@orama/stopwords/swedish";
import { stopwords as trStop } from "@orama/stopwords/turkish";
import { stopwords as ukStop } from "@orama/stopwords/ukrainian";
import { UNSPACED, WORD_RUN } from "./word_chars.ts";

/** English words too common to help rank or highlight. */
const STOP_WORDS = new Set(
  ("a an and are as at be but by can do does for from has have how i if in into is it its me my " +
    "no not of on or our so than that the their them then there these they this to was we were " +
    "what when where which who why will with you your").split(" "),
);

interface Language {
  stem?: (word: string) => string;
  /** Words left out of the index. */
  stop: Set<string>;
  /** Words too common to be a correction or a highlight: the stop words, or a longer list. */
  common?: Set<string>;
}

const lang = (stem: Language["stem"], stop: string[] = []): Language => ({
  stem,
  stop: new Set(stop),
});

/**
 * Primary language subtag → stemmer and stop words. English keeps the project's short
 * list: Orama's longer one drops words documentation is searched for ("through", "only").
 */
const LANGUAGES: Record<string, Language> = {
  en: { stem: english, stop: STOP_WORDS, common: new Set([...STOP_WORDS, ...enStop]) },
  ar: lang(arabic, arStop),
  hy: lang(armenian),
  bg: lang(bulgarian, bgStop),
  da: lang(danish, daStop),
  nl: lang(dutch, nlStop),
  fi: lang(finnish, fiStop),
  fr: lang(french, frStop),
  de: lang(german, deStop),
  el: lang(greek, elStop),
  hu: lang(hungarian, huStop),
  id: lang(indonesian, idStop),
  ga: lang(irish),
  it: lang(italian, itStop),
  lt: lang(lithuanian),
  ne: lang(nepali),
  no: lang(norwegian, noStop),
  nb: lang(norwegian, noStop),
  nn: lang(norwegian, noStop),
  pt: lang(portuguese, ptStop),
  ro: lang(romanian, roStop),
  ru: lang(russian, ruStop),
  sr: lang(serbian),
  es: lang(spanish, esStop),
  sv: lang(swedish, svStop),
  ta: lang(tamil),
  tr: lang(turkish, trStop),
  uk: lang(ukrainian, ukStop),
  ja: lang(undefined, jaStop),
  zh: lang(undefined, zhStop),
};
const NONE: Language = { stop: new Set() };

/** The language a page's tag names ("pt-BR" → "pt"); pages without one are read as English. */
export function languageOf(tag: string | undefined): string {
  const primary = (tag ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return primary || "en";
}

const settings = (code: string) => LANGUAGES[code] ?? NONE;

/** `.` and `-` separate indexed words (shop.orders.refunds); `_` does not. */
const PART = /[.-]/;
const APOSTROPHE = /['’]/g;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const ASCII_WORD = /^[a-z]+$/;
const LETTERS = /^\p{L}+$/u;
/** Scripts whose accents are optional in writing (the marks of Indic scripts are letters). */
const FOLD_MARKS =
  /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Hebrew}])\p{M}+/gu;
const NON_ASCII = /[\u0080-\uffff]/;

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) segmenters.set(locale, s = new Intl.Segmenter(locale, { granularity: "word" }));
  return s;
}

/** Lowercase without diacritics ("Müller" → "muller", "Ελληνικά" → "ελληνικα"). */
export function fold(word: string): string {
  const lower = word.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower.normalize("NFD").replace(FOLD_MARKS, "$1").normalize("NFC");
}

const foldCache = new Map<string, string>();
/** Letters that may carry a diacritic of their own: Latin, Greek and Cyrillic blocks. */
export const ACCENTED = /[\u00c0-\u024f\u0370-\u04ff\u1e00-\u1fff]/;
const PRECOMPOSED = new RegExp(ACCENTED.source, "g");
/**
 * The same folding character by character, keeping every offset: highlights are found
 * in the folded text and shown on the original characters.
 */
export function foldInPlace(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(PRECOMPOSED, (c) => {
    let f = foldCache.get(c);
    if (f === undefined) {
      const d = c.normalize("NFD").replace(FOLD_MARKS, "$1");
      f = d.length === 1 ? d : c;
      if (foldCache.size < 10_000) foldCache.set(c, f);
    }
    return f;
  });
}

/** Words of a run of unspaced script, as Intl.Segmenter splits them. */
function* segments(run: string, code: string): Generator<string> {
  const locale = code === "ja" || code === "zh" || code === "th"
    ? code
    : KANA.test(run)
    ? "ja"
    : "zh";
  for (const s of segmenter(locale).segment(run)) if (s.isWordLike) yield s.segment;
}

/**
 * Every word of a text as written, in order: one `match` for the runs (no object per word),
 * Intl.Segmenter only when some run is of an unspaced script.
 */
export function wordList(text: string, code: string): string[] {
  const runs = text.match(WORD_RUN);
  if (!runs) return [];
  if (!UNSPACED.test(text)) return runs;
  const out: string[] = [];
  for (const run of runs) {
    if (UNSPACED.test(run)) { for (const w of segments(run, code)) out.push(w); }
    else out.push(run);
  }
  return out;
}

/** Every word of a text as written, in order (`wordList`, as an iterator). */
export const words = (text: string, code: string): IterableIterator<string> =>
  wordList(text, code).values();

/** A word as written, looked for from the start of a text. */
const FIRST_RUN = new RegExp(WORD_RUN.source, "u");

/** The first word of a text, as `words` would give it first (undefined when it has none). */
export function firstWord(text: string, code: string): string | undefined {
  const run = FIRST_RUN.exec(text)?.[0];
  if (run === undefined || !UNSPACED.test(run)) return run;
  const first = words(text, code).next();
  return first.done ? undefined : first.value;
}

/**
 * A string that holds only its own characters: a long word or passage cut from a text may
 * keep the whole text alive (V8 slices), which a cache keyed by it must not.
 */
export const ownCopy = (text: string): string =>
  text.length < 13 ? text : JSON.parse(JSON.stringify(text)); // a native copy, the fastest

/**
 * Indexed forms per language, keyed by the word as written: a page's words are mostly
 * the site's common words, so a build stems each distinct word about once. Bounded: two
 * generations, the older dropped when the newer fills, so common words stay.
 */
const STEM_CACHE = 32_768;
const stemCaches = new Map<string, { now: Map<string, string>; old: Map<string, string> }>();

/** The indexed form of one word (no `.` or `-` inside), or "" for a stop word. */
export function term(word: string, code: string): string {
  let cache = stemCaches.get(code);
  if (!cache) stemCaches.set(code, cache = { now: new Map(), old: new Map() });
  let out = cache.now.get(word);
  if (out !== undefined) return out;
  out = cache.old.get(word) ?? stem(word, code);
  if (cache.now.size >= STEM_CACHE) [cache.old, cache.now] = [cache.now, new Map()];
  cache.now.set(ownCopy(word), out);
  return out;
}

function stem(word: string, code: string): string {
  const lower = word.toLowerCase().replace(APOSTROPHE, "");
  const l = settings(code);
  if (!lower || l.stop.has(lower)) return "";
  const stemmable = l.stem && lower.length > 2 &&
    (code === "en" ? ASCII_WORD.test(lower) : LETTERS.test(lower));
  return fold(stemmable ? l.stem!(lower) : lower);
}

/** The indexed forms of a word as written: itself, or its parts when it is a dotted name. */
export function terms(word: string, code: string): string[] {
  if (!PART.test(word)) {
    const t = term(word, code);
    return t ? [t] : [];
  }
  return word.split(PART).map((w) => term(w, code)).filter(Boolean);
}

/** Whether a word is a stop word of a language. */
export const isStopWord = (word: string, code: string) =>
  settings(code).stop.has(word.toLowerCase());

/**
 * Whether a word is too common in a language to be a typo's correction or a highlight
 * ("would", "the"): its stop words, and for English a longer list than the index drops.
 */
export function isCommonWord(word: string, code: string): boolean {
  const l = settings(code), w = word.toLowerCase();
  return (l.common ?? l.stop).has(w);
}

/** A word as written, for the vocabulary of typo corrections. */
export const written = (word: string) => fold(word.replace(APOSTROPHE, ""));

export interface Counted {
  /** Indexed form → occurrences. */
  counts: Map<string, number>;
  /** Number of indexed words (the field's length). */
  length: number;
}

/** Counts the indexed forms of a text; `each` sees every word as written. */
export function countTerms(text: string, code: string, each?: (w: string) => void): Counted {
  const counts = new Map<string, number>();
  let length = 0;
  const count = (t: string) => {
    if (!t) return;
    counts.set(t, (counts.get(t) ?? 0) + 1);
    length++;
  };
  for (const word of words(text, code)) {
    each?.(word);
    if (!PART.test(word)) count(term(word, code));
    else for (const w of word.split(PART)) count(term(w, code));
  }
  return { counts, length };
}
