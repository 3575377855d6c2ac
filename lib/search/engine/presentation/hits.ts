/**
 * A search result as the engine shapes it, which is what `GET /api/search` sends for each
 * result (lib/wire_types.ts adds what the service itself adds).
 */

/** A plain-text snippet with `[start, end)` UTF-16 match offsets (never HTML). */
export interface Highlight {
  field: "title" | "description" | "body";
  snippet: string;
  matches: [number, number][];
}

/** One of a result's best-matching sections. */
export interface SectionHit {
  title: string;
  url: string;
  snippet: string;
}

/** One result: a page, the words of it that matched, and its best sections. */
export interface PageHit {
  title: string;
  description: string;
  /** The page's URL, or its best section's where that is the better target. */
  url: string;
  highlights: Highlight[];
  sections: SectionHit[];
  /** Placed by an owner's curation (`SearchOptions.placement`). */
  pinned?: true;
}
