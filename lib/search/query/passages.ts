/**
 * Pages judged by their best passage (RANKING.passages): a long page that uses each query
 * word once, in sections far apart, answers the query less than a page whose one section
 * holds them all. Among the first pages, a long page counts only the query words its best
 * section holds (with those of its title and description, which stand for every section).
 * A page's sections (its lead, then one per heading, store/packed_sections.ts) and the
 * forms each holds are read once per index version and kept: a search then only looks up
 * its few words in them.
 */
import { terms, words } from "../analysis/tokens.ts";
import { docCount, postings, type SiteDb } from "../store/site_db.ts";
import { unpackText } from "../store/packed_text.ts";
import { unpackSections } from "../store/packed_sections.ts";
import { RANKING } from "./weights.ts";

/** A page's forms → the passages (0: the lead) that hold them. */
type Passages = Map<string, number | number[]>;

/** Where a page's passages keep their number (no form is empty). */
const COUNT = "";

/** Where a heading that is a name is noted: before its key (no form has a space). */
const HEADING = " ";
/** Forms a heading that is a name has at most. */
const MAX_NAME = 4;
/** A set of forms as one string. */
const nameKey = (forms: string[]) => [...new Set(forms)].sort().join(" ");

/** Pages' passages kept per index version: the body lengths' array is new on each seal. */
const kept = new WeakMap<object, Map<number, Passages | null>>();

/** The forms of each of a long page's passages, or null for a page of one passage. */
function passagesOf(db: SiteDb, id: number): Passages | null {
  const key = db.index.lengths.body.data;
  let pages = kept.get(key);
  if (!pages) kept.set(key, pages = new Map());
  const have = pages.get(id);
  if (have !== undefined) return have;
  if (pages.size >= RANKING.passages.kept) pages.delete(pages.keys().next().value!);
  const out = read(db, id);
  pages.set(id, out);
  return out;
}

function read(db: SiteDb, id: number): Passages | null {
  const doc = db.docs.get(id);
  const at = doc?.sectionAt;
  if (!doc || !at || at.length < 2) return null;
  const body = unpackText(doc.body);
  const sections = unpackSections(doc.sections);
  const anchors = sections.map((s) => s.anchor), headings = sections.map((s) => s.heading);
  const out: Passages = new Map();
  const note = (text: string, p: number) => {
    for (const w of words(text, doc.lang)) {
      for (const t of terms(w, doc.lang)) {
        const v = out.get(t);
        if (v === undefined) out.set(t, p);
        else if (typeof v === "number") v !== p && out.set(t, [v, p]);
        else if (v[v.length - 1] !== p) v.push(p);
      }
    }
  };
  // Passage 0 is the lead; a heading not found as a line of the body joins the passage before.
  let p = 0, from = 0;
  at.forEach((start, i) => {
    if (start > from) {
      note(body.slice(from, start), p++);
      from = start;
    }
    // The anchor names its section, often by the names above it ("cmdoption-tool-verbose").
    if (anchors[i]) note(anchors[i], p);
    // A heading that is a name alone ("overlaps_left"), as the set of its forms.
    const own = [...words(headings[i], doc.lang)].flatMap((w) => terms(w, doc.lang));
    if (own.length && own.length <= MAX_NAME) out.set(HEADING + nameKey(own), i);
  });
  note(body.slice(from), p);
  if (p < 1) return null;
  out.set(COUNT, p + 1);
  return out;
}

/**
 * Takes one word off `words` (per document id) of each long page of `ids` whose body holds
 * query words that no one passage holds together: `query` is the query's words as forms.
 */
export function passageFit(
  db: SiteDb,
  ids: number[],
  query: Groups,
  words: { [id: number]: number },
) {
  const { minWords, spread } = RANKING.passages;
  const { groups, of } = query;
  // One word, even a name of several parts, is not spread over a page.
  if (!minWords || new Set(of).size < 2) return;
  const rarest = rarestWord(db, query);
  const lengths = db.index.lengths.body;
  for (const id of ids) {
    if (lengths.get(id) < minWords) continue;
    const passages = passagesOf(db, id);
    // A section headed by the query's rarest word alone is what the query asks for.
    if (!passages || namedByHeading(passages, rarest)) continue;
    const sections = passages.get(COUNT) as number;
    // Per passage: the query words it holds, of the `apart` ones the page holds here and there.
    const held = new Map<number, number>();
    let apart = 0, best = 0;
    for (const forms of groups) {
      // The title or description holds a word for every passage.
      if (forms.some((f) => db.index.get("title", id, f) || db.index.get("description", id, f))) {
        continue;
      }
      const where = new Set<number>();
      for (const f of forms) {
        const v = passages.get(f);
        if (v !== undefined) { for (const p of typeof v === "number" ? [v] : v) where.add(p); }
      }
      // A word the page uses throughout stands for all of it, as its title does.
      if (!where.size || where.size >= spread * sections) continue;
      apart++;
      for (const p of where) {
        const n = (held.get(p) ?? 0) + 1;
        held.set(p, n);
        if (n > best) best = n;
      }
    }
    if (best < apart) words[id] = Math.max(1, words[id] - 1);
  }
}

/** The forms of the query word rarest in the pages' text (the sum of its parts' idf). */
function rarestWord(db: SiteDb, { groups, of }: Groups): string[][] {
  const n = docCount(db), weight: number[] = [];
  groups.forEach((forms, g) => {
    const df = Math.max(...forms.map((f) => bodyPages(db, f)));
    weight[of[g]] = (weight[of[g]] ?? 0) + Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  let top = of[0];
  weight.forEach((w, i) => w > weight[top] && (top = i));
  return groups.filter((_, g) => of[g] === top);
}

/** Pages whose body holds a form. */
function bodyPages(db: SiteDb, form: string): number {
  let n = 0;
  for (const { ids } of postings(db, "body", form)) n += ids.length;
  return n;
}

/** Whether a heading of the page is a query word alone (`groups`: its parts' forms). */
const namedByHeading = (passages: Passages, groups: string[][]) =>
  groups.length > 0 && passages.has(HEADING + nameKey(groups.map((forms) => forms[0])));

/** A query's words as groups of forms (a dotted name's parts each one), `of`: their word. */
export interface Groups {
  groups: string[][];
  of: number[];
}

/** Each query word's forms, with those of its correction (a dotted name's parts each count). */
export function formGroups(
  query: string[],
  langs: string[],
  corrections: { from: string; to: string }[],
): Groups {
  const groups: string[][] = [], of: number[] = [];
  query.forEach((word, i) => {
    const to = corrections.find((c) => c.from === word)?.to;
    const parts: string[][] = [];
    for (const w of to ? [to, word] : [word]) {
      for (const l of langs) {
        terms(w, l).forEach((t, j) => (parts[j] ??= []).push(t));
      }
    }
    groups.push(...parts);
    of.push(...parts.map(() => i));
  });
  return { groups, of };
}
