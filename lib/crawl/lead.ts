/**
 * What a page without a description of its own says first: the lead of its text, as a
 * search engine shows for such a page and as results already show (presentation's
 * `describe`). Kept as the page's description, it weighs as what the page says it is about:
 * a manual page's one-line summary, a chapter's opening sentence.
 */

/** Blocks shorter than this (a date, a byline, a lone label) are no lead. */
const MIN_CHARS = 20;
/** A lead is a sentence or two, cut at a word like a result's description. */
const MAX_CHARS = 160;
/**
 * A field of an info box or a post's metadata ("Author: Ada", "Status: stable",
 * "Posted: 2 May 2024"): a short label, a colon, a short value; it says nothing of the page.
 */
const FIELD = /^[^:.!?]{1,40}:\s+[^.!?:]{0,40}$/;

const leads = (line: string) => {
  const t = line.trim();
  return t.length >= MIN_CHARS && !FIELD.test(t);
};

/** The lead of a page's sections: its first block of some length, not a field, cut near MAX_CHARS. */
export function leadText(sections: readonly { text: string }[]): string {
  let first = "";
  for (const x of sections) {
    first = x.text.split("\n").find(leads) ?? "";
    if (first) break;
  }
  const text = first.slice(0, MAX_CHARS * 3).replace(/\s+/g, " ").trim();
  if (text.length <= MAX_CHARS) return text;
  const cut = text.lastIndexOf(" ", MAX_CHARS - 3);
  return text.slice(0, cut > MAX_CHARS / 2 ? cut : MAX_CHARS - 3) + "…";
}
