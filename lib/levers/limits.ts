/** The levers' limits (docs/api.md, "Owners' levers"), in one table the routes and dashboard read. */
import { MAX_QUERY_CHARS } from "../wire_types.ts";

export const LIMITS = {
  /** Synonym entries a site keeps. */
  synonyms: 1000,
  /** Words or meanings in one entry (a two-way group, or a one-way word's meanings). */
  wordsPerEntry: 20,
  /** Words in one phrase of a synonym. */
  wordsPerPhrase: 4,
  /** Characters in one phrase of a synonym. */
  phraseChars: 64,
  /** Curations a site keeps. */
  curations: 500,
  /** Pinned pages in one curation. */
  pins: 10,
  /** Hidden pages in one curation. */
  hides: 50,
  /** Answer pins a site keeps. */
  answers: 500,
  /** Characters in a pinned answer (as long as any answer shown). */
  answerChars: 1600,
  /** Pages a pinned answer cites. */
  answerSources: 10,
  /** Characters in a curation's query (as /api/search takes q). */
  queryChars: MAX_QUERY_CHARS,
} as const;
