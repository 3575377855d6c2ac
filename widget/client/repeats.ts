/**
 * When a result's body snippet only repeats its description (a page without a meta description
 * is described by the start of its text, which is often the snippet too), the results pages show
 * one of them. Plain string work: the widget, results.js and the islands share it.
 */
import type { Highlight } from "../../lib/wire_types.ts";
import { MATCHED_WORD } from "../../lib/search/engine/analysis/word_chars.ts";

/** The share of the shorter text's words the longer must hold for the two to be one text. */
const NEARLY_ALL = 0.85;
/** Below this many words, only one text holding the other counts (a few words prove little). */
const FEWEST_WORDS = 4;

/** The words of a text, case folded: spacing, ellipses and punctuation between them fall away. */
export function foldForRepeat(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(MATCHED_WORD) ?? [];
}

/**
 * True when `a` and `b` say the same: after folding case, spacing and ellipses one holds the
 * other (as whole words), or the shorter's words (at least four) are nearly all in the longer.
 */
export function repeats(a: string, b: string): boolean {
  const x = foldForRepeat(a), y = foldForRepeat(b);
  if (!x.length || !y.length) return false;
  const [sx, sy] = [` ${x.join(" ")} `, ` ${y.join(" ")} `];
  if (sx.includes(sy) || sy.includes(sx)) return true;
  const [few, many] = [new Set(x), new Set(y)].sort((p, q) => p.size - q.size);
  if (few.size < FEWEST_WORDS) return false;
  let shared = 0;
  for (const w of few) if (many.has(w)) shared++;
  return shared / few.size >= NEARLY_ALL;
}

/**
 * A result's description and body snippet as shown: both when they differ; when the snippet
 * repeats the description, only the one that marks more of the query (the body on a tie, as it
 * is where the query was found), the other null.
 */
export function withoutRepeat(
  description: Highlight | null,
  body: Highlight | null,
): { description: Highlight | null; body: Highlight | null } {
  if (!description || !body || !repeats(description.snippet, body.snippet)) {
    return { description, body };
  }
  const marks = (h: Highlight) => Array.isArray(h.matches) ? h.matches.length : 0;
  return marks(description) > marks(body)
    ? { description, body: null }
    : { description: null, body };
}
