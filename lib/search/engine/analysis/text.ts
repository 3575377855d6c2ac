/** Small text helpers shared by the index, highlighting and retrieval. */

/** English words too common to help rank or highlight. */
export const STOP_WORDS = new Set(
  ("a an and are as at be but by can do does for from has have how i if in into is it its me my " +
    "no not of on or our so than that the their them then there these they this to was we were " +
    "what when where which who why will with you your").split(" "),
);

/** Unicode letters/digits runs: what counts as a word everywhere. */
export const WORD_RE = /[\p{L}\p{N}]+/gu;

/** Collapses runs of whitespace to single spaces and trims. */
export const squash = (s: string) => s.replace(/\s+/g, " ").trim();
