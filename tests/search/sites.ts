/** Small built sites for ranking tests: pages with a title, a body and section headings. */
import { type SearchIndexes } from "../../lib/search/mod.ts";
import { addDoc, createSiteDb, type Doc, type SiteDb } from "../../lib/search/engine/mod.ts";

export interface Page {
  id: string;
  title: string;
  body: string;
  /** Its section headings, in order (anchors left empty). */
  sections?: string[];
}

/** A page as the index takes it (no description). */
export const doc = (p: Page): Doc => ({
  id: p.id,
  title: p.title,
  description: "",
  headings: (p.sections ?? []).join("\n"),
  body: p.body,
  sections: (p.sections ?? []).map((heading) => ({ heading, anchor: "" })),
});

/** An index holding `pages`. */
export function site(pages: Page[]): SiteDb {
  const db = createSiteDb();
  for (const p of pages) addDoc(db, doc(p));
  return db;
}

/** What an index answers to each query in turn (page 1 of `perPage`): to compare two states of it. */
export async function answersOf(
  ix: SearchIndexes,
  site: string,
  queries: readonly string[],
  perPage = 10,
) {
  const out = [];
  for (const q of queries) out.push(await ix.search(site, { query: q, perPage: perPage }));
  return out;
}
