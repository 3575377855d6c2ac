/** Small built sites for ranking tests: pages with a title, a body and section headings. */
import { addDoc, createSiteDb, type Doc, type SiteDb } from "../../lib/search/mod.ts";

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
