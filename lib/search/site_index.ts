/**
 * One site's index in memory (indexes.ts keeps one per site): what it holds and was built
 * with, built from the pages in slices, and compacted into its snapshot's form.
 */
import type { PageStore } from "../sites/pages.ts";
import type { Stamp } from "../storage/change_marks.ts";
import {
  addDoc,
  adoptPassages,
  adoptStated,
  type BodyArena,
  createSiteDb,
  docCount,
  freeBytes,
  heldBytes,
  passageColumns,
  prepareIndex,
  readAhead,
  runSteps,
  seal,
  type SiteDb,
  SiteName,
  statedColumns,
} from "./engine/mod.ts";
import {
  type Encoded,
  type LoadedIndex,
  packingIndex,
  unpackIndex,
  withExtras,
} from "./snapshots.ts";
import { toDoc } from "./documents.ts";
import { rehearsal, rehearses } from "./warm.ts";
import { quiet } from "./activity.ts";
import { releaseSoon } from "../memory_release.ts";
import { inSlices, inTimeSlices } from "../slices.ts";

export interface SiteIndex {
  db: SiteDb;
  version: number;
  checkedAt: number;
  /** The site's change mark read with `version` (lib/storage/change_marks.ts); none: not read. */
  stamp?: Stamp;
  /** Serialises catch-ups so two never replay the same log at once. */
  busy: Promise<void>;
  /** Catch-ups waiting for `busy` (a save standing aside for searches stops standing aside). */
  waiting?: number;
  /** What the site's pages share (title part, language), and what the index was built with. */
  names: SiteName;
  builtWith: string;
  builtPages: number;
  /** Built in place since it was last loaded or compacted: saving it compacts it. */
  loose: boolean;
  /**
   * The bytes a compaction packed, which `db` is read from, while it holds no later change
   * (none kept where the pages' bodies are kept elsewhere: they would hold them again).
   */
  packed?: { db: SiteDb; version: number; bytes?: Uint8Array<ArrayBuffer> };
  /**
   * Where its compactions keep the pages' bodies (lib/storage/text_spill.ts); in memory when
   * unset.
   */
  keepBodies?: (bytes: Uint8Array) => BodyArena;
  /**
   * Memory the index holds, for the per-process budget (INDEX_MEMORY_MB): counted when it is
   * built, loaded or caught up (the scores ranking keeps are counted apart, as they change).
   */
  bytes: number;
}

/**
 * Pages indexed in one go (a build, an upsert's catch-up) from which a loose index is
 * compacted at once rather than at its save: what building left is then freed while the
 * upsert is answered, not carried into the next one's (a burst of them piles it up).
 */
export const COMPACT_NOW_PAGES = 100;

/**
 * Makes a built index what a load of its snapshot gives: the same answers from one buffer,
 * without what building left (grown arrays, an object and a body buffer a page), which the
 * caller frees (memory_release.ts): at its save (when it changed since it was last packed), or
 * after a build or a catch-up of many pages that left it loose.
 */
export function compact(idx: SiteIndex) {
  const bytes = runSteps(compacting(idx));
  // Not kept (the bodies are elsewhere): freed now rather than at V8's next full collection.
  if (idx.packed?.bytes !== bytes) freeBytes(bytes);
}

/**
 * `compact` in steps, for the event loop to run between them (a 2,000-page index took ~150 ms
 * in one go). Nothing may change the index until they are done (a save holds `busy`);
 * searches read the loose index between them, and the compacted one after.
 */
function* compacting(idx: SiteIndex): Generator<void, Uint8Array<ArrayBuffer>> {
  seal(idx.db);
  yield;
  const bytes = yield* packingIndex(idx, { passages: passageColumns(idx.db) });
  yield;
  const { db, passages } = unpackIndex(bytes, idx.version, idx.keepBodies);
  if (passages) adoptPassages(db, passages);
  idx.db = db;
  idx.packed = { db, version: idx.version, bytes: idx.keepBodies ? undefined : bytes };
  idx.bytes = heldBytes(idx.db);
  idx.loose = false;
  return bytes;
}

/**
 * What a save of an index writes (a copy: the bytes go to KV while it may change), with the
 * passages read and the stated names mined by now, since it was packed too (the pass after a
 * build; a compacted or loaded index's buffer never holds the names). An index changed since
 * it was packed is compacted again first: encoding it seals it anew beside the bytes it was
 * read from, and the index would go on holding both (+37 MB after a 2,000-page upsert's save).
 */
export async function snapshotOf(idx: SiteIndex, standAside = false): Promise<Encoded> {
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  const steps = (function* () {
    const { packed } = idx;
    let packedBytes = packed?.bytes;
    if (idx.loose || packed?.db !== idx.db || packed.version !== idx.version) {
      packedBytes = yield* compacting(idx);
      releaseSoon();
      yield;
    }
    const passages = passageColumns(idx.db);
    yield;
    const stated = statedColumns(idx.db);
    yield;
    // Bytes not kept (the bodies are elsewhere) are packed anew from the compacted index.
    bytes = packedBytes
      ? yield* withExtras(packedBytes, { passages, stated })
      : yield* packingIndex(idx, { passages, stated });
    // Copied, and not kept by the index: freed now (a 2,400-page site's are ~12 MB).
    if (packedBytes && packedBytes !== idx.packed?.bytes) freeBytes(packedBytes);
  })();
  // In slices; when asked to, only while no search comes (each slice would hold one), for at
  // most SAVE_STANDS_ASIDE_MS, and no longer once a change waits to be indexed behind it.
  const until = performance.now() + (standAside ? SAVE_STANDS_ASIDE_MS : 0);
  const go = () => performance.now() >= until || quiet() || !!idx.waiting;
  while (!await inTimeSlices(steps, go)) {
    await new Promise((r) => setTimeout(r, SAVE_LOOKS_AGAIN_MS));
  }
  return { version: idx.version, bytes: bytes! };
}

/**
 * Runs the pass after a change (rank.ts prepareIndex) on `idx` in slices, calling `sliced`
 * after each; again from the start when the index changed meanwhile, while it is `current`.
 */
export async function runPass(idx: SiteIndex, current: () => boolean, sliced: () => void) {
  let db = idx.db, version = idx.version;
  const changed = () => idx.db !== db || idx.version !== version;
  try {
    do {
      [db, version] = [idx.db, idx.version];
      // The first slice runs at once: a small site's is done before its first search.
      const done = await inTimeSlices(prepareIndex(db), () => !changed() && current(), sliced);
      // What the pass made (the vocabulary's order and typo filter) is counted from now on.
      if (done && !changed()) idx.bytes = heldBytes(db);
    } while (current() && changed());
  } catch {
    // A pass that failed leaves its work to the searches (query/stated.ts, passages.ts).
  }
}

/** The reads ahead under way (`readAheadAfterPass`), one an index at most. */
const ahead = new Map<SiteIndex, Promise<unknown>>();

/**
 * After a pass, while no one searches, reads ahead what a site's first searches would read
 * (rank.ts readAhead), in slices; then, where `rehearse` allows and the index is the largest
 * so far, rehearses its first searches (warm.ts rehearsal). Not on a loose index (its save
 * compacts it into another, whose pass follows); it stops at a search, a change (whose pass
 * reads ahead again), or once `held` says the index is no longer the site's: the searches
 * read the rest.
 */
export function readAheadAfterPass(idx: SiteIndex, held: () => boolean, rehearse = false) {
  if (idx.loose || ahead.has(idx) || !quiet()) return;
  const { db, version } = idx;
  const go = () => held() && idx.db === db && idx.version === version && quiet();
  // Done, what it read and let go of (each page's headings as text) is freed as a build's is;
  // what fails is read by the searches.
  const run = inTimeSlices(readAhead(db), go).then((done) => {
    if (!done) return;
    releaseSoon();
    if (rehearse && rehearses(docCount(db))) return inTimeSlices(rehearsal(db), go);
  }).catch(() => {}).finally(() => ahead.delete(idx));
  ahead.set(idx, run);
}

/** Waits until no read ahead runs (tests, benchmarks, the eval). */
export async function readsAheadDone() {
  while (ahead.size) await Promise.all(ahead.values());
}

/** How long a save's compaction and copy stand aside while searches come, at most. */
const SAVE_STANDS_ASIDE_MS = 10_000;
/** How often a save standing aside looks again whether it may go on. */
const SAVE_LOOKS_AGAIN_MS = 50;

/** How long a save waits for the pass after a change (a site changing all the time restarts it). */
const PASS_WAIT_MS = 10_000;

/**
 * A save's bytes once `pass` (the pass after a change, or PASS_WAIT_MS of it) and a catch-up
 * under way are done: never during one. Refused (thrown) when the index changed since the
 * save was asked for at `asked`: that change's catch-up left garbage, and a copy of the index
 * made beside it added 30 MB to RSS right after a 2,178-page upsert in one run of two; its
 * own save follows.
 */
export async function encodeWhenDone(
  idx: SiteIndex,
  asked: number,
  pass: Promise<unknown> | undefined,
): Promise<Encoded> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = new Promise((r) => timer = setTimeout(r, PASS_WAIT_MS));
  await Promise.race([pass, wait]).finally(() => clearTimeout(timer));
  const encoded = idx.busy.then(() => {
    if (idx.version !== asked) throw new Error("changed since the save was asked for");
    return snapshotOf(idx, true);
  });
  idx.busy = encoded.then(() => {}, () => {});
  return await encoded;
}

/** An index loaded from its snapshot, taking up the passages the snapshot held. */
export function loadedIndex(
  { passages, stated, ...saved }: LoadedIndex,
  clock: () => number,
): SiteIndex {
  if (passages) adoptPassages(saved.db, passages);
  if (stated) adoptStated(saved.db, stated);
  return {
    ...saved,
    bytes: heldBytes(saved.db),
    loose: false,
    checkedAt: clock(),
    busy: Promise.resolve(),
  };
}

/** Builds a site's index from its pages in KV. */
export async function buildIndex(
  pages: PageStore,
  site: string,
  clock: () => number,
): Promise<SiteIndex> {
  const { version } = await pages.version(site);
  const names = new SiteName();
  for await (const meta of pages.metas(site)) names.add(meta.url, meta.title, meta.lang);
  const db = createSiteDb();
  await inSlices(pages.all(site), (page) => addDoc(db, toDoc(page, names)));
  return {
    bytes: heldBytes(db),
    db,
    version,
    checkedAt: clock(),
    busy: Promise.resolve(),
    names,
    builtWith: names.key(),
    builtPages: names.size,
    loose: true,
  };
}
