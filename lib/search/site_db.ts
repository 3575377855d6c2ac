/**
 * One site's index: Orama's trees and documents (through orama_adapter.ts) and
 * the statistics ranking reads, kept here with real counts: each field's term
 * frequencies and length in words, and the vocabulary of words as written
 * (with how often each is used) that typo corrections are chosen from.
 */
import {
  countDocs,
  createIndex,
  type Field,
  FIELDS,
  insertDoc,
  internalId,
  lookup,
  type OramaIndex,
  removeDoc as removeFromIndex,
  storedDoc,
} from "./orama_adapter.ts";
import { type Counted, countTerms, languageOf, written } from "./tokens.ts";
import { TfStore } from "./tf_store.ts";
import { Trigrams } from "./trigrams.ts";
import { ACCENTED } from "./highlight.ts";
import { sectionOffsets } from "./sections.ts";

export { FIELDS };
export type { Field };

export interface Section {
  heading: string;
  anchor: string;
}

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
  /** Where each section's heading line starts in the body (sections.ts). */
  sectionAt?: Int32Array;
};

/**
 * A body as kept in memory. One curly quote makes V8 store a whole string at two bytes a
 * character (most pages have one); UTF-8 bytes keep such text near one byte a character.
 */
type Packed = string | Uint8Array;
type StoredDoc = Omit<Doc, "body"> & {
  body: Packed;
  lang: string;
  accented?: boolean;
  sectionAt?: Int32Array;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Latin-1 text stays a string (one byte a character in V8); anything else becomes UTF-8. */
const pack = (text: string): Packed => (/[^ -\xff\t\n\r]/.test(text) ? encoder.encode(text) : text);
/**
 * The text of a packed body, or at most its first `maxChars` characters (as many bytes are
 * decoded: fewer characters where they take several bytes each).
 */
function unpack(body: Packed, maxChars = Infinity): string {
  if (typeof body === "string") return maxChars < body.length ? body.slice(0, maxChars) : body;
  if (maxChars >= body.length) return decoder.decode(body);
  // A character cut in two at the end decodes as U+FFFD: leave it out.
  return decoder.decode(body.subarray(0, maxChars)).replace(/\uFFFD$/, "");
}

const DOTTED = /[.-]/;
/** Non-ASCII letters remembered for typo corrections (enough for any alphabet, not for Han). */
const MAX_ALPHABET = 400;

export interface SiteDb {
  ix: OramaIndex<StoredDoc>;
  tf: TfStore;
  /** Words per field per document, and their sum per field. */
  lengths: Record<Field, Map<number, number>>;
  totals: Record<Field, number>;
  /** Words as written (folded) → occurrences, over all fields. */
  vocab: Map<string, number>;
  /** Non-ASCII characters of the vocabulary. */
  alphabet: Set<string>;
  /** Three-letter sequences of the vocabulary's ASCII words. */
  trigrams: Trigrams;
  /** Language → number of documents in it. */
  langs: Map<string, number>;
  /** What the tokenizer counted for the document being inserted, per field. */
  pending: Partial<Record<Field, Counted>>;
  /** +1 while inserting, -1 while removing: how the vocabulary follows the tokenizer. */
  direction: number;
  /** A document's weight beside others that match as many words, where it is not 1. */
  prior: Map<number, number>;
  /** Scores of common tokens (rank.ts), forgotten on every change. */
  scores: Map<string, Map<number, number>>;
}

/** Adds (or takes away) `n` uses of a word as written, and of its parts when it is a dotted name. */
function note(db: SiteDb, word: string, n: number) {
  const add = (w: string) => {
    const count = (db.vocab.get(w) ?? 0) + n;
    if (count > 0) db.vocab.set(w, count);
    else db.vocab.delete(w);
    if (n > 0 && count === n) db.trigrams.add(w);
    if (n > 0 && db.alphabet.size < MAX_ALPHABET && /[\u0080-\uffff]/.test(w)) {
      for (const c of w) if (c.charCodeAt(0) > 0x7f) db.alphabet.add(c);
    }
  };
  const w = written(word);
  add(w);
  if (DOTTED.test(w)) { for (const part of w.split(DOTTED)) if (part) add(part); }
}

/**
 * The headings field of a page with sections: each heading with its anchor, which names
 * the section for links, often by the full name (django.http.HttpRequest).
 */
export const headingsText = (sections: Section[]) =>
  sections.map((s) => s.anchor ? `${s.heading} ${s.anchor}` : s.heading).join("\n");

/** Pages mostly of code (a source listing) come after prose pages that match as well. */
const CODE_SHARE = 0.7;
const CODE_PRIOR = 0.3;

function priorOf(doc: Doc): number {
  return (doc.codeShare ?? 0) >= CODE_SHARE ? CODE_PRIOR : 1;
}

export function createSiteDb(): SiteDb {
  const empty = () => ({
    title: new Map(),
    description: new Map(),
    headings: new Map(),
    body: new Map(),
  });
  const db: SiteDb = {
    ix: undefined as unknown as OramaIndex<StoredDoc>,
    tf: new TfStore(),
    lengths: empty(),
    totals: { title: 0, description: 0, headings: 0, body: 0 },
    vocab: new Map(),
    alphabet: new Set(),
    trigrams: new Trigrams(),
    langs: new Map(),
    pending: {},
    direction: 0,
    scores: new Map(),
    prior: new Map(),
  };
  db.ix = createIndex<StoredDoc>((text, language, field) => {
    // Words as written are counted per field first: the vocabulary is touched once per word.
    const written = new Map<string, number>();
    const counted = countTerms(
      text,
      language,
      db.direction ? (w) => written.set(w, (written.get(w) ?? 0) + 1) : undefined,
    );
    for (const [w, n] of written) note(db, w, n * db.direction);
    if (db.direction > 0) db.pending[field] = counted;
    return [...counted.counts.keys()];
  });
  return db;
}

/** Indexes a document, keeping its statistics and text compactly. */
export function addDoc(db: SiteDb, doc: Doc) {
  const lang = languageOf(doc.lang);
  db.scores.clear();
  const stored: StoredDoc = { ...doc, lang };
  db.direction = 1;
  db.pending = {};
  let id: number;
  try {
    id = insertDoc(db.ix, stored, lang);
  } finally {
    db.direction = 0;
  }
  stored.body = pack(doc.body);
  // Kept once: the headings field is made again from the sections when it is needed.
  const rebuilt = doc.sections?.length && headingsText(doc.sections) === doc.headings;
  if (rebuilt) stored.headings = "";
  stored.accented = ACCENTED.test(doc.body);
  if (doc.sections?.length) stored.sectionAt = sectionOffsets(doc.body, doc.sections);
  for (const f of FIELDS) {
    const counted = db.pending[f];
    if (!counted) continue;
    db.tf.take(f, id, counted.counts);
    db.lengths[f].set(id, counted.length);
    db.totals[f] += counted.length;
  }
  db.pending = {};
  const prior = priorOf(doc);
  if (prior !== 1) db.prior.set(id, prior);
  db.langs.set(lang, (db.langs.get(lang) ?? 0) + 1);
}

/** Removes a document, if present. */
export function removeDoc(db: SiteDb, id: string) {
  const internal = internalId(db.ix, id);
  if (internal === undefined) return;
  const doc = storedDoc(db.ix, internal);
  if (!doc) return;
  db.scores.clear();
  db.tf.drop(internal);
  db.prior.delete(internal);
  for (const f of FIELDS) {
    db.totals[f] -= db.lengths[f].get(internal) ?? 0;
    db.lengths[f].delete(internal);
  }
  const n = (db.langs.get(doc.lang) ?? 1) - 1;
  if (n > 0) db.langs.set(doc.lang, n);
  else db.langs.delete(doc.lang);
  // Orama tokenizes the text again to take it out of the index.
  doc.body = unpack(doc.body);
  if (!doc.headings && doc.sections?.length) doc.headings = headingsText(doc.sections);
  db.direction = -1;
  try {
    removeFromIndex(db.ix, id, doc.lang);
  } finally {
    db.direction = 0;
  }
}

/** The document for an internal id, with (at most the first `maxChars` of) its text. */
export function docAt(db: SiteDb, id: number, maxChars = Infinity): Doc {
  const doc = storedDoc(db.ix, id)!;
  // The headings field is made again from the sections only when someone reads it.
  return {
    ...doc,
    get headings() {
      return doc.headings || (doc.sections?.length ? headingsText(doc.sections) : "");
    },
    body: unpack(doc.body, maxChars),
  };
}

/** Number of documents indexed. */
export const docCount = (db: SiteDb) => countDocs(db.ix);

/** Documents holding a token in a field: exactly, or (prefix) every token starting with it. */
export const postings = (db: SiteDb, field: Field, token: string, prefix = false) =>
  lookup(db.ix, field, token, prefix);
