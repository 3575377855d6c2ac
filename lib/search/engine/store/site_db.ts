/**
 * One site's index: its documents (kept compactly), an inverted index in typed arrays
 * (postings.ts) with each field's term frequencies and lengths, and the vocabulary of
 * words as written (with how often each is used) that typo corrections are chosen from.
 */
import { type Field, FIELDS, type Hit, InvertedIndex } from "./postings.ts";
import { ACCENTED, countTerms, languageOf, words, written } from "../analysis/tokens.ts";
import { Trigrams } from "../analysis/trigrams.ts";
import { Vocab } from "./vocab.ts";
import { orderOf } from "./word_order.ts";
import { DocStore, type StoredDoc } from "./doc_store.ts";
import { textDigest } from "./text_digest.ts";
import { bufferBytes, MAP_ENTRY_BYTES } from "./held_bytes.ts";
import {
  packSections,
  type Section,
  type SectionLines,
  sectionLines,
  sectionOffsets,
  unpackSections,
} from "./packed_sections.ts";
import { keptPrefix, packText, textAround, type TextPrefix, unpackText } from "./packed_text.ts";
import { type DocFilters, FilterPostings } from "./filter_postings.ts";
import { keepShown, keptShown } from "./shown_rows.ts";

/** `headings` are the page's section headings, one a line; `sections` name their anchors. */
export type Doc = {
  id: string;
  title: string;
  description: string;
  headings: string;
  body: string;
  lang?: string;
  sections?: Section[];
  /** Share of the text in code blocks (a source listing is near 1). */
  codeShare?: number;
  /** Whether the body has letters with diacritics (highlighting must fold it). */
  accented?: boolean;
  /** Where each section's heading line starts in the body (packed_sections.ts). */
  sectionAt?: Int32Array;
  /**
   * The page's weight beside others that match as many words (query/weights.ts), where it is
   * not 1; kept in the index, not in the document.
   */
  prior?: number;
  /** Filter name → values (documents.ts adds the built-in ones); kept in the index only. */
  filters?: DocFilters;
};

const DOTTED = /[.-]/;
/** Non-ASCII letters remembered for typo corrections (enough for any alphabet, not for Han). */
const MAX_ALPHABET = 400;

export interface SiteDb {
  /**
   * Postings per field (postings.ts), term frequencies (`index.get(field, id, token)`), words
   * per field per document (`index.lengths[field].get(id)`) and their sums (`index.totals`).
   */
  index: InvertedIndex;
  /** Documents by internal id, and internal ids by document id (doc_store.ts). */
  docs: DocStore;
  /** Words as written (folded) → occurrences, over all fields. */
  vocab: Vocab;
  /** Non-ASCII characters of the vocabulary. */
  alphabet: Set<string>;
  /** Three-letter sequences of the vocabulary's ASCII words. */
  trigrams: Trigrams;
  /** Language → number of documents in it. */
  langs: Map<string, number>;
  /** A document's weight beside others that match as many words, where it is not 1. */
  prior: Map<number, number>;
  /** Scores of common tokens (query/bm25.ts), forgotten on every change. */
  scores: Map<string, Scores>;
  /** Documents by filter name and value (filter_postings.ts). */
  filters: FilterPostings;
}

/**
 * One token's scores: documents in the order they were first scored (ties keep it), and
 * their BM25. Typed arrays, so kept scores cost 12 bytes each and no work for the GC.
 */
export interface Scores {
  size: number;
  ids: Uint32Array;
  values: Float64Array;
}

/** Adds (or takes away) `n` uses of a word as written, and of its parts when it is a dotted name. */
function note(db: SiteDb, word: string, n: number) {
  const w = written(word);
  noteWritten(db, w, n);
  if (DOTTED.test(w)) { for (const part of w.split(DOTTED)) if (part) noteWritten(db, part, n); }
}

/** Adds (or takes away) `n` uses of one word as written (a function, not a closure per word). */
function noteWritten(db: SiteDb, w: string, n: number) {
  const count = (db.vocab.get(w) ?? 0) + n;
  if (count > 0) db.vocab.set(w, count);
  else db.vocab.delete(w);
  if (n > 0 && count === n) db.trigrams.add(w);
  if (n > 0 && db.alphabet.size < MAX_ALPHABET && NON_ASCII.test(w)) {
    for (const c of w) if (c.charCodeAt(0) > 0x7f) db.alphabet.add(c);
  }
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Notes (n = 1) or forgets (n = -1) the words as written of one field's text. */
function noteWords(db: SiteDb, text: string, lang: string, n: number) {
  // Counted per field first: the vocabulary is touched once per distinct word.
  const seen = new Map<string, number>();
  for (const w of words(text, lang)) seen.set(w, (seen.get(w) ?? 0) + 1);
  seen.forEach((k, w) => note(db, w, k * n));
}

/**
 * The headings field of a page with sections: each heading with its anchor, which names
 * the section for links, often by the full name (shop.orders.Refund).
 */
export const headingsText = (sections: Section[]) =>
  sections.map((s) => s.anchor ? `${s.heading} ${s.anchor}` : s.heading).join("\n");

/** An empty index over the given parts (snapshot_codec.ts passes decoded ones). */
export function createSiteDb(index = new InvertedIndex(), docs = new DocStore()): SiteDb {
  return {
    index,
    docs,
    vocab: new Vocab(),
    alphabet: new Set(),
    trigrams: new Trigrams(),
    langs: new Map(),
    scores: new Map(),
    prior: new Map(),
    filters: new FilterPostings(),
  };
}

/** A stored field's text as it was indexed (the headings field is made again from the sections). */
function storedText(doc: StoredDoc, f: Field): string | undefined {
  if (f === "body") return unpackText(doc.body);
  if (f === "headings") return storedHeadings(doc);
  return doc[f];
}

/** The headings field as indexed: kept, or (when it was the sections') made from them again. */
const storedHeadings = (doc: StoredDoc, sections = unpackSections(doc.sections)) =>
  doc.headings || headingsText(sections);

/** Seals the index when due (on a lookup, or on an insert), moving documents to their new ids. */
function sealIfDue(db: SiteDb, lookingUp: boolean) {
  if (db.index.due(lookingUp)) seal(db, !lookingUp);
}

/** What a search's first lookup would do, done before it takes ids from elsewhere (filters). */
export const sealForLookup = (db: SiteDb) => sealIfDue(db, true);

/**
 * Merges the index's recent part and drops removed documents now (snapshot_codec.ts
 * encodes a sealed index); documents get their new ids. While `building` the recent part
 * keeps its buffers.
 */
export function seal(db: SiteDb, building = false) {
  if (!db.index.changed) return;
  const remap = db.index.seal(building);
  db.docs.remap(remap);
  const prior = new Map<number, number>();
  for (const [id, p] of db.prior) if (remap[id] >= 0) prior.set(remap[id], p);
  db.prior = prior;
  db.filters.remap(remap);
  db.scores.clear();
}

/** Indexes a document (replacing one of the same id), keeping its statistics and text compactly. */
export function addDoc(db: SiteDb, doc: Doc) {
  if (db.docs.idOf(doc.id) !== undefined) removeDoc(db, doc.id);
  const lang = languageOf(doc.lang);
  db.scores.clear();
  const counted: Partial<Record<Field, ReturnType<typeof countTerms>>> = {};
  for (const f of FIELDS) {
    const text = doc[f];
    if (typeof text !== "string") continue;
    const seen = new Map<string, number>();
    counted[f] = countTerms(text, lang, (w) => seen.set(w, (seen.get(w) ?? 0) + 1));
    seen.forEach((n, w) => note(db, w, n)); // forEach: no [word, count] array per entry
  }
  const id = db.index.add(counted);
  // Every document has the same keys in the same order (one shape, also when decoded).
  const stored: StoredDoc = {
    id: doc.id,
    title: doc.title,
    description: doc.description,
    // Kept once: the headings field is made again from the sections when it is needed.
    headings: doc.sections?.length && headingsText(doc.sections) === doc.headings
      ? ""
      : doc.headings,
    body: packText(doc.body),
    lang,
    sections: packSections(doc.sections),
    codeShare: doc.codeShare,
    accented: ACCENTED.test(doc.body),
    sectionAt: doc.sections?.length ? sectionOffsets(doc.body, doc.sections) : undefined,
    digest: new Uint8Array(0),
  };
  stored.digest = textDigest(stored);
  db.docs.put(id, stored);
  if (doc.prior !== undefined && doc.prior !== 1) db.prior.set(id, doc.prior);
  if (doc.filters) db.filters.add(id, doc.filters);
  db.langs.set(lang, (db.langs.get(lang) ?? 0) + 1);
  sealIfDue(db, false);
}

/** Removes a document, if present. */
export function removeDoc(db: SiteDb, id: string) {
  const internal = db.docs.idOf(id);
  if (internal === undefined) return;
  const doc = db.docs.get(internal)!;
  db.scores.clear();
  db.docs.remove(internal, id);
  db.index.remove(internal);
  db.prior.delete(internal);
  db.filters.remove(internal);
  const n = (db.langs.get(doc.lang) ?? 1) - 1;
  if (n > 0) db.langs.set(doc.lang, n);
  else db.langs.delete(doc.lang);
  // The words as written are found again in the text to take them out of the vocabulary.
  for (const f of FIELDS) {
    const text = storedText(doc, f);
    if (text) noteWords(db, text, doc.lang, -1);
  }
}

/** The document for an internal id, with (at most the first `maxChars` of) its text. */
export function docAt(db: SiteDb, id: number, maxChars = Infinity): Doc {
  const doc = db.docs.get(id)!;
  // The headings field is made again from the sections only when someone reads it.
  const sections = unpackSections(doc.sections);
  return {
    ...doc,
    get headings() {
      return storedHeadings(doc, sections);
    },
    body: unpackText(doc.body, maxChars),
    sections,
  };
}

/** What a result shows of a document: no more of it made than a result needs. */
export interface ShownDoc {
  id: string;
  title: string;
  description: string;
  accented: boolean;
  /** Its first `maxChars` characters, read as far as asked (packed_text.ts `keptPrefix`). */
  body: TextPrefix;
  sections: SectionLines;
  /** Where each section's heading line starts in the body (-1 or missing: not a line of it). */
  sectionAt: Int32Array;
}

const NO_OFFSETS = new Int32Array(0);

/**
 * The document for an internal id as a result shows it: its text inflated only as far as
 * asked and kept for the next result showing it, its sections read in place; a row's fields
 * and sections' lines decoded once and kept too (shown_rows.ts).
 */
export function shownAt(db: SiteDb, id: number, maxChars: number): ShownDoc {
  const holder = db.docs.holder(id);
  const row = typeof holder === "number" ? holder : -1;
  let parts = row >= 0 ? keptShown(db.docs, row) : undefined;
  if (!parts) {
    const doc = db.docs.shown(id)!;
    const lines = sectionLines(doc.sections, true);
    parts = {
      id: doc.id,
      title: doc.title,
      description: doc.description,
      accented: doc.accented ?? true,
      // Kept, its anchors are read now: a row's are read lazily from the index's bytes.
      sections: row >= 0 && lines.count
        ? { ...lines, packed: { anchors: lines.packed.anchors } }
        : lines,
    };
    if (row >= 0) keepShown(db.docs, row, parts);
  }
  return {
    ...parts,
    body: keptPrefix(db.docs.bodySource(id)!, maxChars),
    sectionAt: (parts.sections.count && db.docs.sectionAt(id)) || NO_OFFSETS,
  };
}

/**
 * Bytes an index holds, counted from its parts (the per-process budget, INDEX_MEMORY_MB):
 * every buffer once (a loaded index's arrays are views of its snapshot's bytes), strings,
 * documents, the vocabulary's typo filter and order once made, with an allowance for objects
 * and Map entries.
 */
export function heldBytes(db: SiteDb): number {
  const seen = new Set<ArrayBufferLike>();
  const v = db.vocab.parts(), words = [v.arena, v.starts, v.lens, v.counts, v.filter];
  let n = db.index.bytes(seen) + bufferBytes(db.trigrams.bits, seen) +
    [...words, orderOf(db.vocab)].reduce((k, a) => k + (a ? bufferBytes(a, seen) : 0), 0) +
    (v.long.size + db.prior.size + db.langs.size + db.alphabet.size) * MAP_ENTRY_BYTES;
  n += db.docs.bytes(seen) + db.filters.bytes(seen);
  return n;
}

/**
 * A stretch of a document's text holding characters `from` to `to`, and where it starts
 * (whole blocks of it: it may start before `from` and end after `to`); read for a result
 * shown, and kept for the next (packed_text.ts).
 */
export function textAt(db: SiteDb, id: number, from: number, to: number) {
  const src = db.docs.bodySource(id)!;
  return textAround(src.read(), from, to, src);
}

/** Number of documents indexed. */
export const docCount = (db: SiteDb) => db.index.live;

/** The site's `n` most used words (as written, starting with a letter), in steps (vocab.ts). */
export const mostUsedWords = (db: SiteDb, n: number): Generator<void, string[]> =>
  db.vocab.mostUsed(n);

/**
 * Documents holding a token in a field: exactly, or (prefix) every token starting with it,
 * in term order. The index is sealed first when enough has changed since.
 */
export function postings(db: SiteDb, field: Field, token: string, prefix = false): Generator<Hit> {
  sealIfDue(db, true);
  return db.index.lookup(field, token, prefix);
}
