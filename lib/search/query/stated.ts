/**
 * Meaning a site states (lib/meaning/equivalences.ts) as ranking uses it: mined from the
 * pages' text and kept per version of the index, then offered to rank() beside the owner's
 * synonyms, both ways, at RANKING.statedWeight. Each page is mined once (again when its
 * text changes) in a pass after each build, load or catch-up (mineStated, run by indexes.ts),
 * never by a search, so a search's results do not hang on how many searches came before;
 * the list is merged anew only every MERGE_EVERY pages mined and when all are, not per page.
 */
import {
  type Equivalence,
  mergeEquivalences,
  mineEquivalences,
} from "../../meaning/equivalences.ts";
import { isStopWord } from "../analysis/tokens.ts";
import { docAt, type SiteDb } from "../store/site_db.ts";
import type { Alternatives } from "./expand.ts";
import { RANKING } from "./weights.ts";

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

/** Stated names a snapshot held (their JSON), taken into `known` when the index is first mined. */
const adopted = new WeakMap<SiteDb, Uint8Array>();

/** What a site never mined offers. */
const NONE: Mined = {
  stamp: "",
  todo: [],
  pages: new Map(),
  list: [],
  byFirst: new Map(),
  merge: false,
};

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

/** The names of each equivalence, both ways, by their first word (stop words left out). */
function byFirstWord(db: SiteDb, list: Equivalence[]) {
  const lang = mainLanguage(db);
  const key = (name: string) => name.split(/[\s-]+/).filter((w) => w && !isStopWord(w, lang));
  const out = new Map<string, [string[], string[]][]>();
  for (const { words: [a, b] } of list) {
    const [x, y] = [key(a), key(b)];
    if (!x.length || !y.length) continue;
    for (const [from, to] of [[x, y], [y, x]]) {
      const entries = out.get(from[0]);
      if (entries) entries.push([from, to]);
      else out.set(from[0], [[from, to]]);
    }
  }
  return out;
}

/** Pages listed between two looks at the clock (a listing costs ~2 µs a page). */
const LIST_BATCH = 64;

/**
 * The site's equivalences, doing the work a change left for at most about `budgetMs` (0:
 * none): listing the new version's pages (each mined before is kept), mining the others, and
 * merging the list, each in pieces that stop once the time is spent (at least one page
 * mined a call), so no step of the pass holds the event loop for long.
 */
function mine(db: SiteDb, budgetMs: number): Mined {
  const stamp = stampOf(db);
  let m = mined.get(db);
  if (m?.stamp === stamp && !m.listing && !m.todo.length && !m.merge) return m;
  // A search leaves listing and mining to the pass after the change (mineStated).
  if (budgetMs <= 0) return m ?? NONE;
  const until = performance.now() + budgetMs;
  if (m?.stamp !== stamp) {
    takeAdopted(db);
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
    if (!db.docs.body(id)) continue; // gone since it was listed
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

/** What a snapshot held of the pages mined, as `statedColumns` wrote it: known, as if mined here. */
function takeAdopted(db: SiteDb) {
  const json = adopted.get(db);
  if (!json) return;
  adopted.delete(db);
  let rows: unknown;
  try {
    rows = JSON.parse(utf8Out.decode(json));
  } catch {
    return; // mined again, as a snapshot without them would be
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
 * What the site's pages mined so far state, for its snapshot (JSON of [text key, equivalences]
 * per page mined, none stated included), or undefined when no page is mined.
 */
export function statedColumns(db: SiteDb): Uint8Array | undefined {
  const pages = mined.get(db)?.pages;
  const rows: [string, Equivalence[]][] = [];
  for (const [id] of db.docs.sizes()) {
    const key = db.docs.textKey(id)!;
    const found = pages?.get(key) ?? known.get(key);
    if (found) rows.push([key, found]);
  }
  return rows.length ? utf8In.encode(JSON.stringify(rows)) : undefined;
}

/** Takes up what a snapshot held of an index's stated names (read at its first mining, off a search's path). */
export function adoptStated(db: SiteDb, json: Uint8Array) {
  adopted.set(db, json);
}

/** Every equivalence a site's pages state, most often said first. */
export function statedEquivalences(db: SiteDb): Equivalence[] {
  let m = mine(db, Infinity);
  while (m.listing || m.todo.length || m.merge) m = mine(db, Infinity);
  return m.list;
}

/** Lists, mines and merges what a change left, about MS_PER_STEP a step (indexes.ts runs it in slices). */
export function* mineStated(db: SiteDb): Generator<void> {
  for (let m = mine(db, MS_PER_STEP); m.listing || m.todo.length || m.merge;) {
    yield;
    m = mine(db, MS_PER_STEP);
  }
}

/** The spans of a query (its words, lowercased) that a name the site gives also stands for. */
export function statedSpans(db: SiteDb, words: string[]): Alternatives[] {
  const { byFirst } = mine(db, 0);
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
    out.push({ from: i, to, phrases, weight: RANKING.statedWeight });
    i = to;
  }
  return out;
}
