/**
 * What a word is, for every part that reads words: the index (tokens.ts), the highlighter
 * (presentation/highlight.ts) and the browser scripts (widget/), so they agree on where a word
 * starts and ends. A leaf: it imports nothing, and the browser bundles take it whole.
 */

/** Characters words are made of: letters, combining marks and digits, of any script. */
const LETTERS = "\\p{L}\\p{N}\\p{M}";

/**
 * A word as written: runs of letters joined by `_`, `.`, `-` or an apostrophe ("shop.orders",
 * "don't", "get_object"). The index parts it at `.` and `-` (tokens.ts).
 */
export const WORD_RUN = new RegExp(`[${LETTERS}]+(?:[_.'’-][${LETTERS}]+)*`, "gu");

/**
 * The characters of a word as matched and highlighted (letters and `_`), as the body of a
 * character class: `[${WORD_CLASS}]`, or `[^${WORD_CLASS}]` for what parts words.
 */
export const WORD_CLASS = `${LETTERS}_`;

/** One character of a word as matched and highlighted. */
export const WORD_CHAR = new RegExp(`[${WORD_CLASS}]`, "u");

/** Each word as matched and highlighted, whole: runs of WORD_CHAR. */
export const MATCHED_WORD = new RegExp(`[${WORD_CLASS}]+`, "gu");

/**
 * Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, Han and its
 * extensions): their words are found by Intl.Segmenter, and a match may start inside a run of
 * letters. Ranges, which test faster than Script= classes.
 */
export const UNSPACED =
  /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]|[\ud840-\ud87f][\udc00-\udfff]/;
