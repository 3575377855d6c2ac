/**
 * What the full scoring reads of a section's text: its content terms in order and how much
 * it reads like prose. Per process, keyed by the text itself: the sections of a site's main
 * pages answer many different questions, and each is read once. Bounded: two generations
 * of at most READ_CHARS characters of text each, the older dropped when the newer fills.
 */
import { ownCopy } from "../search/mod.ts";
import { contentTerms } from "./analysis.ts";
import { looksLikeCode } from "./extractive.ts";

/** A section's text as scoring reads it. */
export interface SectionRead {
  lang: string;
  words: string[];
  form: number;
}

/** Characters of text per generation: with their terms, under 1 MB. */
const READ_CHARS = 200_000;
let now = new Map<string, SectionRead>(), old = new Map<string, SectionRead>(), chars = 0;

/** A section's text read in a language, remembered. */
export function readSection(text: string, lang: string): SectionRead {
  let read = now.get(text);
  if (read?.lang === lang) return read;
  read = old.get(text);
  if (read?.lang !== lang) read = { lang, words: contentTerms(text, lang), form: form(text) };
  if (chars + text.length > READ_CHARS) [old, now, chars] = [now, new Map(), 0];
  now.set(ownCopy(text), read);
  chars += text.length;
  return read;
}

/**
 * How much a section reads like prose that can answer: a list of short lines (a table of
 * contents, a menu) or a block of code answers nothing in words.
 */
function form(text: string): number {
  const lines = text.split("\n", 60).filter((l) => l.trim());
  if (!lines.length) return 0;
  let words = 0, codeLines = 0, proseLines = 0;
  for (const l of lines) {
    for (let at = l.indexOf(" "); at >= 0; at = l.indexOf(" ", at + 1)) words++;
    words++;
    if (looksLikeCode(l)) codeLines++;
    if (/[.!]["”’)]?$/u.test(l.slice(-2))) proseLines++; // the line's end: its last characters
  }
  const code = codeLines / lines.length, prose = proseLines / lines.length;
  const list = lines.length >= 4 && words / lines.length < 14 && prose < 0.3 ? 0.4 : 1;
  return list * (1 - 0.6 * code);
}
