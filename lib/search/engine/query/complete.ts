/**
 * The word being typed, completed from the site's own words: a stemmer's form can be shorter
 * than what is typed ("shipping" is indexed as "ship", "settings" as "set"), so a prefix of the
 * forms finds nothing for "shipp" or "sett" until the word is whole. The most used words of the
 * site that begin with it stand in for it (live search shows them as the visitor types).
 */
import { terms, written } from "../analysis/tokens.ts";
import type { SiteDb } from "../store/site_db.ts";
import { completions } from "../store/word_order.ts";

/** Words a typed prefix stands for, at most (the most used). */
const COMPLETIONS = 8;

/**
 * The indexed forms of the site's most used words that `word` begins, once it has `minPrefix`
 * letters (Ranking.minPrefix).
 */
export function completed(
  db: SiteDb,
  word: string,
  { langs, minPrefix }: { langs: string[]; minPrefix: number },
): Set<string> {
  const prefix = written(word), out = new Set<string>();
  if (prefix.length < minPrefix) return out;
  for (const w of completions(db.vocab, prefix, COMPLETIONS)) {
    for (const l of langs) for (const t of terms(w, l)) out.add(t);
  }
  return out;
}
