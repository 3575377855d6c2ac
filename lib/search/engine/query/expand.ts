/**
 * What ranking takes from outside the index to read a query's words as other phrases too:
 * an owner's synonyms (lib/levers) and the meaning the site states (stated.ts).
 */

/** Query words [from, to) that other phrases also stand for. */
export interface Alternatives {
  from: number;
  to: number;
  phrases: string[][]; // each phrase as its words
  /** A page found through a phrase against the words typed; Ranking.synonymWeight when left out. */
  weight?: number;
}

/** Finds synonyms among a query's words (lowercased, as written); `known`: a word pages use. */
export type Expand = (words: string[], known: (word: string) => boolean) => Alternatives[];

/**
 * Phrases one span may stand for, from every source together (an owner's synonyms, names the
 * site states, URL names): a query pays for each, so a list built to multiply them cannot.
 */
export const MAX_ALTERNATIVES = 24;

/** The spans with each one's phrases told once and at most MAX_ALTERNATIVES of them. */
export function boundSpans(spans: Alternatives[]): Alternatives[] {
  return spans.map((span) => {
    const seen = new Set<string>();
    const phrases: string[][] = [];
    for (const p of span.phrases) {
      if (phrases.length === MAX_ALTERNATIVES) break;
      const key = p.join(" ");
      if (seen.has(key)) continue;
      seen.add(key);
      phrases.push(p);
    }
    return phrases.length === span.phrases.length ? span : { ...span, phrases };
  });
}
