/**
 * Meaning a site states (lib/search/engine/analysis/equivalences.ts) as ranking uses it: mined from the
 * pages' text and kept per version of the index, then offered to rank() beside the owner's
 * synonyms, both ways, at Ranking.statedWeight. Each page is mined once (again when its
 * text changes) in a pass after each build, load or catch-up (mineStated, run by indexes.ts);
 * a search before that pass is done does what is left itself (indexes.ts has it wait for the
 * pass), so its results never hang on timing; the list is merged anew only every
 * MERGE_EVERY pages mined and when all are, not per page.
 */
import { type Equivalence, mergeEquivalences, mineEquivalences } from "../analysis/equivalences.ts";
import { isStopWord } from "../analysis/tokens.ts";
import { docAt, type SiteDb } from "../store/site_db.ts";
import { type Alternatives, MAX_ALTERNATIVES } from "./expand.ts";

/** Text read per page: definitions come early, and mining every byte of a manual costs. */
const PAGE_CHARS = 20_000;
/** Time one step of the pass mines for (at least one page; 0.1 to 0.3 ms each on manuals). */
const MS_PER_STEP = 1;
/** Pages mined between two merges of the list (a merge reads every page's equivalences). */
const MERGE_EVERY = 200;

interface Mined {
  stamp: string;
  /** Pages of this version not mined yet: internal id and key. */
  todo: [number, string][];
  /** Each page's equivalences, by its text's key (DocStore.textKey: a changed page is mined again). */
  pages: Map<string, Equivalence[]>;
  list: Equivalence[];
  /** First word of a name → [its words, the other name's words]. */
  byFirst: Map<string, [string[], string[]][]>;
  /** This version's pages not listed yet, with the pages the version before had (listing). */
  listing?: { ids: Iterator<[number, string, number]>; before?: Map<string, Equivalence[]> };
  /** The list is to be merged anew (pages went, MERGE_EVERY were mined, or all are). */
  merge: boolean;
}

const mined = new WeakMap<SiteDb, Mined>();
/**
 * Each page's equivalences over all sites' indexes, by the same key: a reload or compaction
 * of an index (a new SiteDb) mines no page again. The oldest go first past PAGES_KNOWN.
 */
const known = new Map<string, Equivalence[]>();
const PAGES_KNOWN = 100_000;

let minedCount = 0;

/** Pages mined in this process so far (tests, benchmarks: an index loaded from a snapshot mines none). */
export const pagesMined = () => minedCount;

/** Forgets every page mined in this process (tests: what a restarted one knows). */
export function forgetStated() {
  known.clear();
}

/**
 * Stated names a snapshot held, taken into `known` a part at a time when the index is first
 * mined: `from` is where the next part starts (parts are JSON lines, PART_ROWS pages each).
 */
const adopted = new WeakMap<SiteDb, { json: Uint8Array; from: number }>();
/** Pages a part of the stated names holds (about 1 ms to parse on manuals). */
const PART_ROWS = 200;
const NEWLINE = 0x0a, OPEN_BRACE = 0x7b;

/**
 * Changes whenever a page is added, replaced or removed, and when ids move (a seal): ids given
 * and removed are counted, as a page replaced by one of the same lengths changes no total.
 */
const stampOf = (db: SiteDb) => {
  const { totals: t, slots, deadCount } = db.index;
  return `${slots}:${deadCount}:${t.title}:${t.description}:${t.headings}:${t.body}:${db.index.changed}`;
};

/** The site's most used language, whose stop words a query leaves out. */
function mainLanguage(db: SiteDb): string {
  let best = "en", most = 0;
  for (const [l, n] of db.langs) if (n > most) [best, most] = [l, n];
  return best;
}

/** Names one word may start, at most: a query reads them all where that word is typed. */
const MAX_NAMES_BY_WORD = 4 * MAX_ALTERNATIVES;

/** The names of each equivalence, both ways, by their first word (stop words left out). */
function byFirstWord(db: SiteDb, list: Equivalence[]) {
  const lang = mainLanguage(db);
  const key = (name: string) => name.split(/[\s-]+/).filter((w) => w && !isStopWord(w, lang));
  const out = new Map<string, [string[], string[]][]>();
  const seen = new Set<string>();
  for (const { words: [a, b] } of list) {
    const [x, y] = [key(a), key(b)];
    if (!x.length || !y.length) continue;
    for (const [from, to] of [[x, y], [y, x]]) {
      // Told once; and, the list being most said first, a word's most said names kept.
      const id = JSON.stringify([from, to]);
      if (seen.has(id)) continue;
      seen.add(id);
      const entries = out.get(from[0]);
      if (!entries) out.set(from[0], [[from, to]]);
      else if (entries.length < MAX_NAMES_BY_WORD) entries.push([from, to]);
    }
  }
  return out;
}

/** Pages listed between two looks at the clock (a listing costs ~2 µs a page). */
const LIST_BATCH = 64;

/**
 * The site's equivalences, doing the work a change left for at most about `budgetMs`:
 * taking up what a snapshot held, listing the new version's pages (each mined before is kept), mining the others, and
 * merging the list, each in pieces that stop once the time is spent (at least one page
 * mined a call), so no step of the pass holds the event loop for long.
 */
function mine(db: SiteDb, budgetMs: number): Mined {
  const stamp = stampOf(db);
  let m = mined.get(db);
  if (m?.stamp === stamp && !m.listing && !m.todo.length && !m.merge) return m;
  const until = performance.now() + budgetMs;
  if (m?.stamp !== stamp) {
    // A new version: pages mined before are kept, the others listed to mine.
    const before = m?.listing ? m.listing.before : m?.pages;
    m = {
      stamp,
      todo: [],
      pages: new Map(),
      list: m?.list ?? [],
      byFirst: m?.byFirst ?? new Map(),
      listing: { ids: db.docs.sizes(), before },
      merge: false,
    };
    mined.set(db, m);
  }
  // What a snapshot held is known before the pages are listed, or they would be mined again.
  if (!takeAdopted(db, until)) return m;
  if (m.listing) {
    const { ids, before } = m.listing;
    for (let n = 0;; n++) {
      if (n % LIST_BATCH === LIST_BATCH - 1 && performance.now() >= until) return m;
      const next = ids.next();
      if (next.done) break;
      const [id] = next.value;
      const key = db.docs.textKey(id)!;
      const had = before?.get(key) ?? known.get(key);
      if (had) m.pages.set(key, had);
      else m.todo.push([id, key]);
    }
    m.listing = undefined;
    // Pages gone change the list as much as pages mined.
    if (!before || before.size !== m.pages.size) m.merge = true;
    m.todo.reverse(); // mined in id order, from the end of the list
  }
  let minedNow = 0;
  while (m.todo.length && !m.merge && (minedNow === 0 || performance.now() < until)) {
    const [id, key] = m.todo.pop()!;
    // Gone since it was listed (asked without reading its text, which may be in a file).
    if (db.docs.holder(id) === undefined) continue;
    const found = mineEquivalences(docAt(db, id, PAGE_CHARS).body);
    minedCount++;
    m.pages.set(key, found);
    if (known.size >= PAGES_KNOWN) known.delete(known.keys().next().value!);
    known.set(key, found);
    minedNow++;
    // Merged when all are mined, and every MERGE_EVERY pages on the way.
    if (!m.todo.length || m.pages.size % MERGE_EVERY === 0) m.merge = true;
  }
  if (m.merge && (minedNow === 0 || performance.now() < until)) {
    m.list = mergeEquivalences(m.pages.values());
    m.byFirst = byFirstWord(db, m.list);
    m.merge = false;
  }
  return m;
}

/**
 * Takes what a snapshot held of the pages mined (`statedColumns`' parts) into `known`, as if
 * mined here: a part at a time (at least one) until `until`; whether all are taken.
 */
function takeAdopted(db: SiteDb, until: number): boolean {
  const a = adopted.get(db);
  if (!a) return true;
  do {
    let end = a.json.indexOf(NEWLINE, a.from);
    if (end < 0) end = a.json.length;
    takePart(a.json.subarray(a.from, end));
    a.from = end + 1;
    if (a.from >= a.json.length) {
      adopted.delete(db);
      return true;
    }
  } while (performance.now() < until);
  return false;
}

/** One part's rows into `known` (a damaged part's pages are mined again, as without it). */
function takePart(json: Uint8Array) {
  let rows: unknown;
  try {
    rows = JSON.parse(utf8Out.decode(json));
  } catch {
    return;
  }
  if (!Array.isArray(rows)) return;
  for (const row of rows) {
    if (!Array.isArray(row) || typeof row[0] !== "string" || !Array.isArray(row[1])) continue;
    if (known.size >= PAGES_KNOWN) known.delete(known.keys().next().value!);
    known.set(row[0], row[1]);
  }
}

const utf8In = new TextEncoder();
const utf8Out = new TextDecoder();

/**
 * What the site's pages mined so far state, for its snapshot, or undefined when no page is
 * mined: lines of JSON (JSON escapes every newline in a string), each [text key, equivalences]
 * of PART_ROWS pages (none stated included), so a load parses them a part at a time; first,
 * when every page is mined, {"list"} merged from them as a load would (adoptStated).
 */
export function statedColumns(db: SiteDb): Uint8Array | undefined {
  takeAdopted(db, Infinity); // what a load held that no pass took up yet
  const pages = mined.get(db)?.pages;
  const parts: string[] = [], lists: Equivalence[][] = [];
  let every = true;
  let rows: [string, Equivalence[]][] = [];
  for (const [id] of db.docs.sizes()) {
    const key = db.docs.textKey(id)!;
    const found = pages?.get(key) ?? known.get(key);
    if (found) rows.push([key, found]), lists.push(found);
    else every = false;
    if (rows.length === PART_ROWS) parts.push(JSON.stringify(rows)), rows = [];
  }
  if (rows.length) parts.push(JSON.stringify(rows));
  if (!parts.length) return undefined;
  if (every) parts.unshift(JSON.stringify({ list: mergeEquivalences(lists) }));
  return utf8In.encode(parts.join("\n"));
}

/**
 * Takes up what a snapshot held of an index's stated names: its list at once, as the load's
 * first search would settle it (the pages' rows merged in id order); the rows a part a step
 * of its pass, or its first mining.
 */
export function adoptStated(db: SiteDb, json: Uint8Array) {
  let from = 0;
  if (json[0] === OPEN_BRACE) {
    from = json.indexOf(NEWLINE) + 1 || json.length;
    const list = listOf(json.subarray(0, from));
    if (list) {
      const none = { todo: [], pages: new Map(), merge: false };
      mined.set(db, { stamp: stampOf(db), list, byFirst: byFirstWord(db, list), ...none });
    }
  }
  if (from < json.length) adopted.set(db, { json, from });
}

/** A list line's equivalences, or undefined if it is not one. */
function listOf(json: Uint8Array): Equivalence[] | undefined {
  try {
    const { list } = JSON.parse(utf8Out.decode(json));
    const sound = (e: Equivalence) =>
      Array.isArray(e?.words) && e.words.length === 2 &&
      e.words.every((w) => typeof w === "string");
    return Array.isArray(list) && list.every(sound) ? list : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The site's stated names for its pages as they are now, doing here whatever the pass after
 * the change has not yet: results never hang on how far that pass has got.
 */
function settled(db: SiteDb): Mined {
  let m = mine(db, Infinity);
  while (m.listing || m.todo.length || m.merge) m = mine(db, Infinity);
  return m;
}

/** Whether the site's stated names are settled for its pages as they are (a search waits for nothing). */
export function statedSettled(db: SiteDb): boolean {
  const m = mined.get(db);
  return m?.stamp === stampOf(db) && !m.listing && !m.todo.length && !m.merge;
}

/** Every equivalence a site's pages state, most often said first. */
export const statedEquivalences = (db: SiteDb): Equivalence[] => settled(db).list;

/** Lists, mines and merges what a change left, about MS_PER_STEP a step (indexes.ts runs it in slices). */
export function* mineStated(db: SiteDb): Generator<void> {
  // What a load held is taken up even when its list settled it: its buffer is not kept.
  while (!takeAdopted(db, performance.now() + MS_PER_STEP)) yield;
  for (let m = mine(db, MS_PER_STEP); m.listing || m.todo.length || m.merge;) {
    yield;
    m = mine(db, MS_PER_STEP);
  }
}

/**
 * The spans of a query (its words, lowercased) that a name the site gives also stands for,
 * each found at `weight` (Ranking.statedWeight).
 */
export function statedSpans(db: SiteDb, words: string[], weight: number): Alternatives[] {
  const { byFirst } = settled(db);
  if (!byFirst.size) return [];
  const out: Alternatives[] = [];
  for (let i = 0; i < words.length;) {
    // The longest name starting here wins, with every other name it has.
    let to = i, phrases: string[][] = [];
    for (const [from, other] of byFirst.get(words[i]) ?? []) {
      const end = i + from.length;
      if (end > words.length || from.some((w, k) => words[i + k] !== w)) continue;
      if (end > to) [to, phrases] = [end, []];
      if (end === to) phrases.push(other);
    }
    if (to === i) {
      i++;
      continue;
    }
    out.push({ from: i, to, phrases, weight });
    i = to;
  }
  return out;
}
