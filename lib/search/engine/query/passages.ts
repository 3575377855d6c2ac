/**
 * Pages judged by their best passage (Ranking.passages): a long page that uses each query
 * word once, in sections far apart, answers the query less than a page whose one section
 * holds them all. Among the first pages, a long page counts only the query words its best
 * section holds (with those of its title and description, which stand for every section).
 * A page's sections (its lead, then one per heading, store/packed_sections.ts) and the
 * forms each holds are read once per page text (not per index version) and kept, in a pass
 * after each build (readPassages, run by indexes.ts): a search only looks up its few words
 * in them, and reads itself the pages among its first the pass has not read yet, so its
 * results never hang on how far the pass has got.
 * A snapshot keeps what was read (passageColumns, adoptPassages): a loaded index needs no pass.
 */
import { terms, words } from "../analysis/tokens.ts";
import { docCount, postings, type SiteDb } from "../store/site_db.ts";
import { unpackText } from "../store/packed_text.ts";
import { unpackSections } from "../store/packed_sections.ts";
import { DEFAULT_RANKING } from "./weights.ts";
import type { PassageBlocks } from "../store/passage_blocks.ts";

/**
 * A long page's passages (0: the lead), compactly: per form it holds (by a 32-bit hash of it)
 * the passages holding it, in pairs sorted by hash, or EVERYWHERE for a form in `spread` of
 * them or more; and the headings that are a name alone, as sets of forms (`nameKey`).
 */
interface Passages {
  count: number;
  hashes: Uint32Array;
  at: Uint16Array;
  names: Set<string>;
}

/** A form the page uses throughout: it stands for all of it, as its title does. */
const EVERYWHERE = 0xffff;
/** Forms a heading that is a name has at most. */
const MAX_NAME = 4;
/** A set of forms as one string. */
const nameKey = (forms: string[]) => [...new Set(forms)].sort().join(" ");

/** FNV-1a: a form's 32-bit hash (two forms of one page share one about once in 10^6 pages). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The passages holding a form (EVERYWHERE alone when it is in most of them). */
function where(passages: Passages, form: string): number[] {
  const { hashes, at } = passages, h = hash(form);
  let lo = 0, hi = hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (hashes[mid] < h) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let i = lo; i < hashes.length && hashes[i] === h; i++) out.push(at[i]);
  return out;
}

/**
 * Long pages' passages by page (DocStore.textKey: its URL and its text's digest, which any
 * edit changes and no other page shares, of this site or another): they outlive index
 * versions, compactions and loads.
 * The oldest read go first past KEPT_BYTES over all sites (a few KB a page).
 */
const kept = new Map<string, Passages | null>();
const KEPT_BYTES = 32 << 20;
let keptBytes = 0;

/** What a page's passages hold, roughly. */
const sizeOf = (p: Passages | null) => 64 + (p ? p.hashes.length * 6 + p.names.size * 48 : 0);

/** Passages a loaded index's snapshot held: its columns' rows by page text key, made on use. */
interface Adopted {
  cols: PassageBlocks;
  rows: Map<string, number>;
  made: Map<number, Passages | null>;
}

const adopted = new WeakMap<SiteDb, Adopted>();
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A page's passages from a snapshot's columns (views of them), or undefined when not there. */
function fromSnapshot(db: SiteDb, key: string): Passages | null | undefined {
  const a = adopted.get(db);
  const row = a?.rows.get(key);
  if (row === undefined) return undefined;
  let p = a!.made.get(row);
  if (p !== undefined) return p;
  const { counts, from, hashes, at, nameFrom, names } = a!.cols;
  const text = fromUtf8.decode(names.subarray(nameFrom[row], nameFrom[row + 1]));
  p = counts[row] < 2 ? null : {
    count: counts[row],
    hashes: hashes.subarray(from[row], from[row + 1]),
    at: at.subarray(from[row], from[row + 1]),
    names: new Set(text ? text.split("\n") : []),
  };
  a!.made.set(row, p);
  return p;
}

/** A page's passages if they were read (here or before a snapshot), else undefined. */
function known(db: SiteDb, key: string): Passages | null | undefined {
  const have = kept.get(key); // null: read, one passage
  return have !== undefined ? have : fromSnapshot(db, key);
}

/**
 * The passages read so far of the site's long pages, as columns for its snapshot (ids as
 * `db` numbers them now: seal it first). Pages not read yet are left out.
 */
export function passageColumns(db: SiteDb): PassageBlocks {
  const ids: number[] = [], counts: number[] = [], from = [0], nameFrom = [0];
  const hashes: Uint32Array[] = [], at: Uint16Array[] = [], names: Uint8Array[] = [];
  let pairs = 0, bytes = 0;
  for (const [id] of db.docs.sizes()) {
    const key = db.docs.textKey(id);
    const p = key === undefined ? undefined : known(db, key);
    if (p === undefined) continue;
    ids.push(id);
    counts.push(p?.count ?? 0);
    if (p) hashes.push(p.hashes), at.push(p.at), pairs += p.hashes.length;
    from.push(pairs);
    const text = utf8.encode(p ? [...p.names].join("\n") : "");
    names.push(text);
    nameFrom.push(bytes += text.length);
  }
  const join = <T extends Uint32Array | Uint16Array | Uint8Array>(parts: T[], out: T) => {
    let n = 0;
    for (const part of parts) out.set(part, n), n += part.length;
    return out;
  };
  return {
    ids: Uint32Array.from(ids),
    counts: Uint16Array.from(counts),
    from: Uint32Array.from(from),
    hashes: join(hashes, new Uint32Array(pairs)),
    at: join(at, new Uint16Array(pairs)),
    nameFrom: Uint32Array.from(nameFrom),
    names: join(names, new Uint8Array(bytes)),
  };
}

/**
 * Takes the passages a snapshot held for an index decoded from it (ids as it numbers them):
 * its searches and its pass read none of those pages again.
 */
export function adoptPassages(db: SiteDb, cols: PassageBlocks) {
  const rows = new Map<string, number>();
  cols.ids.forEach((id, row) => {
    const key = db.docs.textKey(id);
    if (key !== undefined) rows.set(key, row);
  });
  adopted.set(db, { cols, rows, made: new Map() });
}

/** Forgets every page's passages read in this process (tests: what a restarted one knows). */
export function forgetPassages() {
  kept.clear();
  keptBytes = 0;
}

/**
 * The forms of each of a long page's passages (read now if need be), or null for one passage;
 * `key`: the page's DocStore.textKey, which its caller has.
 */
function passagesOf(db: SiteDb, id: number, key: string | undefined): Passages | null {
  if (key === undefined) return null;
  const have = known(db, key);
  if (have !== undefined) return have;
  const out = read(db, id);
  keptBytes += sizeOf(out);
  for (const [k, p] of kept) {
    if (keptBytes <= KEPT_BYTES) break;
    kept.delete(k);
    keptBytes -= sizeOf(p);
  }
  kept.set(key, out);
  return out;
}

/**
 * Reads the passages of the site's long pages not read yet, one page a step (indexes.ts runs
 * it in slices after a build, a load or a catch-up): searches then need not read them.
 */
export function* readPassages(db: SiteDb): Generator<void> {
  const { minWords } = DEFAULT_RANKING.passages;
  if (!minWords) return;
  for (const [id] of db.docs.sizes()) {
    if (db.index.lengths.body.get(id) < minWords) continue;
    const key = db.docs.textKey(id);
    if (key === undefined || known(db, key) !== undefined) continue;
    passagesOf(db, id, key);
    yield;
  }
}

function read(db: SiteDb, id: number): Passages | null {
  const doc = db.docs.get(id);
  const at = doc?.sectionAt;
  if (!doc || !at || at.length < 2) return null;
  const body = unpackText(doc.body);
  const sections = unpackSections(doc.sections);
  const forms = new Map<string, number[]>(), names = new Set<string>();
  // A manual says its words many times: each is made into forms once.
  const formsOf = new Map<string, string[]>();
  const note = (text: string, p: number) => {
    for (const w of words(text, doc.lang)) {
      let ts = formsOf.get(w);
      if (!ts) formsOf.set(w, ts = terms(w, doc.lang));
      for (const t of ts) {
        const list = forms.get(t);
        if (!list) forms.set(t, [p]);
        else if (list[list.length - 1] !== p) list.push(p);
      }
    }
  };
  // Passage 0 is the lead; a heading not found as a line of the body joins the passage before.
  let p = 0, from = 0;
  at.forEach((start, i) => {
    if (start > from && p < EVERYWHERE - 1) {
      note(body.slice(from, start), p++);
      from = start;
    }
    // The anchor names its section, often by the names above it ("cmdoption-tool-verbose").
    const { heading, anchor } = sections[i] ?? { heading: "", anchor: "" };
    if (anchor) note(anchor, p);
    const own = [...words(heading, doc.lang)].flatMap((w) => terms(w, doc.lang));
    if (own.length && own.length <= MAX_NAME) names.add(nameKey(own));
  });
  note(body.slice(from), p);
  if (p < 1) return null;
  const count = p + 1, most = DEFAULT_RANKING.passages.spread * count;
  // Pairs (hash, passage) as one number each, sorted: hash * 2^16 + passage.
  const pairs: number[] = [];
  for (const [form, list] of forms) {
    const h = hash(form) * 0x10000;
    if (list.length >= most) pairs.push(h + EVERYWHERE);
    else for (const q of list) pairs.push(h + q);
  }
  const sorted = Float64Array.from(pairs).sort();
  const hashes = new Uint32Array(sorted.length), at16 = new Uint16Array(sorted.length);
  sorted.forEach((v, i) => {
    hashes[i] = Math.floor(v / 0x10000);
    at16[i] = v % 0x10000;
  });
  return { count, hashes, at: at16, names };
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
  unit = 1,
) {
  const { minWords } = DEFAULT_RANKING.passages;
  const { groups, of } = query;
  // One word, even a name of several parts, is not spread over a page.
  if (!minWords || new Set(of).size < 2) return;
  const rarest = rarestWord(db, query);
  const lengths = db.index.lengths.body;
  for (const id of ids) {
    // A page matching one word keeps it: not read. Any other is read now if its pass after a
    // build has not yet (2–5 ms a page): results never hang on how far that pass has got.
    if (lengths.get(id) < minWords || words[id] <= unit) continue;
    const passages = passagesOf(db, id, db.docs.textKey(id));
    // A section headed by the query's rarest word alone is what the query asks for.
    if (!passages || namedByHeading(passages, rarest)) continue;
    // Per passage: the query words it holds, of the `apart` ones the page holds here and there.
    const held = new Map<number, number>();
    let apart = 0, best = 0;
    for (const forms of groups) {
      // The title or description holds a word for every passage.
      if (forms.some((f) => db.index.get("title", id, f) || db.index.get("description", id, f))) {
        continue;
      }
      const holding = new Set(forms.flatMap((f) => where(passages, f)));
      if (!holding.size || holding.has(EVERYWHERE)) continue;
      apart++;
      for (const p of holding) {
        const n = (held.get(p) ?? 0) + 1;
        held.set(p, n);
        if (n > best) best = n;
      }
    }
    if (best < apart) words[id] = Math.max(1, words[id] - unit);
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
  groups.length > 0 && passages.names.has(nameKey(groups.map((forms) => forms[0])));

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
