/**
 * Which of a query's forms the headings of the first pages hold, for the named-heading check
 * (named.ts). Few forms: each is looked up once for all the pages. Many (a word being typed
 * stands for every word it begins, hundreds for "in": looking each up in each page's headings
 * cost common-word queries tens of ms): each form's heading postings are read once instead.
 */
import { postings, type SiteDb } from "../store/site_db.ts";

/** Per document id: 1 + its place among the pages asked about, while they are (else 0). */
let place = new Uint32Array(0);
/** One form's frequency in each page's headings. */
let tfs = new Uint16Array(64);

/** Per page of `ids`: how many of `forms` its headings hold (`held`), and how many of `rare`. */
export function headingForms(
  db: SiteDb,
  ids: number[],
  forms: Set<string>,
  rare: ReadonlySet<string>,
  queryWords: number,
): { held: Uint16Array; rare: Uint16Array } {
  const held = new Uint16Array(ids.length), rareHeld = new Uint16Array(ids.length);
  if (forms.size <= queryWords) {
    if (tfs.length < ids.length) tfs = new Uint16Array(ids.length);
    for (const f of forms) {
      db.index.tfsOf("headings", f, ids, tfs);
      const isRare = rare.has(f);
      for (let j = 0; j < ids.length; j++) {
        if (tfs[j] === 0) continue;
        held[j]++;
        if (isRare) rareHeld[j]++;
      }
    }
    return { held, rare: rareHeld };
  }
  if (place.length < db.index.slots) place = new Uint32Array(db.index.slots);
  ids.forEach((id, j) => place[id] = j + 1);
  try {
    for (const f of forms) {
      const isRare = rare.has(f);
      for (const { ids: has, tfs } of postings(db, "headings", f)) {
        for (let i = 0; i < has.length; i++) {
          const j = place[has[i]];
          if (!j || !tfs[i]) continue;
          held[j - 1]++;
          if (isRare) rareHeld[j - 1]++;
        }
      }
    }
  } finally {
    for (const id of ids) place[id] = 0;
  }
  return { held, rare: rareHeld };
}
