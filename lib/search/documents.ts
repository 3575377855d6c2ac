/**
 * A page as the index reads it: its title without the site name the pages share, its
 * sections (or, for a page sent without any, the body's lines that read like headings), its
 * language, and its prior (a listing of code comes after prose).
 */
import type { Page } from "../sites/pages.ts";
import type { SiteName } from "./analysis/site_name.ts";
import { type Doc, headingsText } from "./store/site_db.ts";
import { priorOf } from "./query/weights.ts";

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

/** The document a page is indexed as. */
export function toDoc(p: Page, names: SiteName): Doc {
  const name = names.current();
  const given = p.sections ?? p.headings?.map((heading) => ({ heading, anchor: "" }));
  const sections = (given ?? lineHeadings(p.body).map((heading) => ({ heading, anchor: "" })))
    .filter((s) => !names.isName(s.heading, name));
  return {
    id: p.url,
    title: names.strip(p.title, name),
    description: p.description,
    headings: headingsText(sections),
    body: p.body,
    // A page that declares no language is read in the one most of the site's pages declare.
    lang: p.lang || names.language() || undefined,
    sections,
    codeShare: p.codeShare,
    prior: priorOf(p.codeShare),
  };
}
