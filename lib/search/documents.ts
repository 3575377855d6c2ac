/**
 * A page as the index reads it: its title without the site name the pages share, its
 * sections (or, for a page sent without any, the body's lines that read like headings), its
 * language, and its prior (a listing of code comes after prose).
 */
import type { Page } from "../sites/pages.ts";
import {
  type Doc,
  type DocFilters,
  headingsText,
  languageOf,
  priorOf,
  type SiteName,
} from "./engine/mod.ts";

/** A line that reads like a heading: short, a name or a phrase, not a sentence or code. */
const HEADING_LINE = /^[^\n=(){};<>]{2,80}$/;
const SENTENCE_END = /[.,;:!?…]$/;
const MAX_LINE_HEADINGS = 300;

/**
 * Headings of a page sent without any: the body's lines that read like headings (a
 * page's text as sent usually keeps each heading on a line of its own).
 */
function lineHeadings(body: string): string[] {
  const out: string[] = [];
  const lines = body.split("\n");
  let all = 0;
  for (const line of lines) {
    const l = line.trim();
    if (HEADING_LINE.test(l) && !SENTENCE_END.test(l) && l.split(" ").length <= 8) {
      all++;
      if (out.length < MAX_LINE_HEADINGS) out.push(l);
    }
  }
  // Text wrapped into short lines (a PDF's) has no lines that stand out.
  // (Lines cut from the body are views of it, V8's sliced strings: kept, they would hold the
  // whole text; the index keeps sections joined anew, packed_sections.ts.)
  return all > lines.length * 0.8 && lines.length > 5 ? [] : out;
}

/** A path ending in one of these names a document (a PDF, a slide deck…), not a web page. */
const DOCUMENT_PATH = /\.(pdf|docx?|odt|rtf|pptx?|odp|xlsx?|ods|csv|epub|txt)$/i;

/**
 * The built-in filters (docs/api.md "Filters"): `section`, the first segment of the path
 * (`/` → `home`); `type`, `document` for a file such as a PDF, else `page`; `lang`. A page's
 * own filters of the same name replace them.
 */
export function builtInFilters(url: string, lang: string): DocFilters {
  const path = url.split(/[?#]/)[0];
  const first = path.split("/").find(Boolean);
  let section = first ?? "home";
  try {
    section = decodeURIComponent(section);
  } catch { /* kept as written */ }
  return {
    section: [section.slice(0, 64)],
    type: [DOCUMENT_PATH.test(path) ? "document" : "page"],
    lang: [lang],
  };
}

/** The document a page is indexed as. */
export function toDoc(p: Page, names: SiteName): Doc {
  const name = names.current();
  const given = p.sections ?? p.headings?.map((heading) => ({ heading, anchor: "" }));
  // A page that declares no language is read in the one most of the site's pages declare.
  const lang = p.lang || names.language() || undefined;
  const sections = (given ?? lineHeadings(p.body).map((heading) => ({ heading, anchor: "" })))
    .filter((s) => !names.isName(s.heading, name));
  const title = names.strip(p.title, name);
  return {
    id: p.url,
    title,
    description: p.description,
    headings: headingsText(sections),
    body: p.body,
    lang,
    sections,
    codeShare: p.codeShare,
    prior: priorOf({ codeShare: p.codeShare, title, headings: sections.map((s) => s.heading) }),
    filters: { ...builtInFilters(p.url, languageOf(lang)), ...p.filters },
  };
}
