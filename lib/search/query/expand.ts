/**
 * What ranking takes from outside the index to read a query's words as other phrases too:
 * an owner's synonyms (lib/levers) and the meaning the site states (stated.ts).
 */

/** Query words [from, to) that other phrases also stand for. */
export interface Alternatives {
  from: number;
  to: number;
  phrases: string[][]; // each phrase as its words
  /** A page found through a phrase against the words typed; RANKING.synonymWeight when left out. */
  weight?: number;
}

/** Finds synonyms among a query's words (lowercased, as written); `known`: a word pages use. */
export type Expand = (words: string[], known: (word: string) => boolean) => Alternatives[];
