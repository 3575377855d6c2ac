/**
 * A page's sections as answers read them (splitSections, an FAQ section cut at each
 * question), kept across questions: section_score.ts keeps what it learns of a section (its
 * stems, its form) on the section itself, so a page read for one question is neither cut nor
 * stemmed again for the next. An entry serves only while the page's text and sections are
 * the same; the cache holds at most BUDGET characters of text, the least recently used out
 * first. One per process, shared by every site: a site that reads much only makes others
 * read their pages again, never answers differently.
 */
import { type SectionedPage, splitQuestions, splitSections, type TextSection } from "./sections.ts";

/** Characters of page text held, at most (with what scoring keeps, some 10 MB). */
const BUDGET = 2_000_000;

interface Entry {
  body: string;
  sections: SectionedPage["sections"];
  headings: SectionedPage["headings"];
  read: TextSection[];
}

const entries = new Map<string, Entry>();
let held = 0;

/** The sections of `page` (known to the caller as `key`, unique across sites), a new array. */
export function sectionsOf(key: string, page: SectionedPage): TextSection[] {
  const had = entries.get(key);
  if (had) {
    entries.delete(key);
    held -= had.body.length;
    if (same(had, page)) return keep(key, had);
  }
  return keep(key, {
    body: page.body,
    sections: page.sections,
    headings: page.headings,
    read: splitSections(page).flatMap(splitQuestions),
  });
}

function keep(key: string, entry: Entry): TextSection[] {
  // A page of more than a share of the budget would push out every other: it is read anew.
  if (entry.body.length > BUDGET / 8) return [...entry.read];
  entries.set(key, entry);
  held += entry.body.length;
  for (const [k, e] of entries) {
    if (held <= BUDGET || k === key) break;
    entries.delete(k);
    held -= e.body.length;
  }
  // The caller adds sections read for its own question (retrieve.ts reachFar).
  return [...entry.read];
}

function same(e: Entry, page: SectionedPage): boolean {
  if (e.body !== page.body) return false;
  const [a, b] = [e.sections ?? [], page.sections ?? []];
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].heading !== b[i].heading || a[i].anchor !== b[i].anchor) return false;
  }
  // Headings matter only where no sections name them (splitSections).
  return a.length > 0 || String(e.headings ?? "") === String(page.headings ?? "");
}
