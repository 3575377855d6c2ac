/**
 * Whether a page records changes (release notes, a changelog, "what's new in 3.1"): such a
 * page mentions hundreds of a site's names in passing, one bullet each, and the page that
 * defines a name is what a search for it wants. Told by structure, in any language: a
 * version number standing as a word in its title, or leading many of its headings ("3.1.25",
 * "Version 2.0.1 (2021-05-18)", "Release 15.4"). A heading's leading section number ("9.8.
 * Date Functions") is numbering, not a version; a version late in a heading dates the thing
 * it names ("FROB_FAST (since Frob 2.6)"), as a reference does.
 */

/** A version ("2.0", "v3.1.25", "15.4rc1") or a date ("2021-05-18") standing as a word. */
const VERSION =
  /(?:^|[\s(])(?:v?\p{N}+(?:\.\p{N}+)+[a-z]*\p{N}*|(?:19|20)\p{N}{2}-\p{N}{2}(?:-\p{N}{2})?)(?=$|[\s),:;!?])/iu;
/** A section number leading a heading that goes on ("9.8.", "E.1.2", "A.3 "). */
const LEADING_NUMBER = /^(?:\p{Lu}\.)?\p{N}+(?:\.\p{N}+)*\.?\s+(?=\S)/u;

/** Headings a page needs, at least, for their share to tell (a short page has too few). */
const MIN_HEADINGS = 3;
/** Share of its headings that are versions from which a page is a changelog. */
const VERSION_SHARE = 0.25;
/** Words of a heading a version leads from ("3.1.25", "Version 3.1.25", "Frob 3.1.25"). */
const LEADING_WORDS = 2;

/**
 * Whether a line holds a version as a word, among its first `within` words (numbering left
 * out): a title anywhere, a heading near its start.
 */
export function namesVersion(line: string, within = Infinity): boolean {
  const words = line.trim().replace(LEADING_NUMBER, "").split(/\s+/);
  for (let i = 0; i < words.length && i < within; i++) if (VERSION.test(words[i])) return true;
  return false;
}

/** Whether a page, by its title and section headings, records changes. */
export function isChangeRecord(title: string, headings: readonly string[]): boolean {
  if (namesVersion(title)) return true;
  if (headings.length < MIN_HEADINGS) return false;
  let versions = 0;
  for (const h of headings) if (namesVersion(h, LEADING_WORDS)) versions++;
  return versions >= Math.max(MIN_HEADINGS, headings.length * VERSION_SHARE);
}
