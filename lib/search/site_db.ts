/**
 * One site's Orama database and the compact term frequencies beside it. Orama
 * tokenizes and keeps the radix trees and statistics; its per-document
 * frequency objects are moved into a TfStore as each document is inserted.
 */
import { create, insert, type Orama, remove } from "@orama/orama";
import { STOP_WORDS } from "./text.ts";
import { TfStore } from "./tf_store.ts";

const SCHEMA = {
  title: "string",
  description: "string",
  headings: "string",
  body: "string",
} as const;
export const PROPS = ["title", "description", "headings", "body"] as const;

/** `headings` are the page's section headings, one a line. */
export type Doc = {
  id: string;
  title: string;
  description: string;
  headings: string;
  body: string;
};

/**
 * A body as kept in memory. One curly quote makes V8 store a whole string at two bytes a
 * character (most pages have one); UTF-8 bytes keep such text near one byte a character.
 */
type Packed = string | Uint8Array;
type StoredDoc = Omit<Doc, "body"> & { body: Packed };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Latin-1 text stays a string (one byte a character in V8); anything else becomes UTF-8. */
const pack = (text: string): Packed => (/[^ -\xff\t\n\r]/.test(text) ? encoder.encode(text) : text);
/** The text of a packed body, or about its first `maxChars` characters. */
function unpack(body: Packed, maxChars = Infinity): string {
  if (typeof body === "string") return maxChars < body.length ? body.slice(0, maxChars) : body;
  const bytes = maxChars * 3 < body.length ? body.subarray(0, maxChars * 3) : body;
  return decoder.decode(bytes);
}

export interface RadixNode {
  find(p: { term: string; exact: boolean; tolerance: number }): Record<string, number[]>;
}

/** The parts of Orama's index this project reads (Orama is pinned in deno.json). */
export interface IndexData {
  indexes: Record<string, { node: RadixNode }>;
  frequencies: Record<string, Record<number, Record<string, number> | undefined>>;
  tokenOccurrences: Record<string, Record<string, number>>;
  avgFieldLength: Record<string, number>;
  fieldLengths: Record<string, Record<number, number>>;
}

export interface SiteDb {
  orama: Orama<typeof SCHEMA>;
  tf: TfStore;
}

export function createSiteDb(): SiteDb {
  const orama = create({
    schema: SCHEMA,
    // Results are ordered by rank.ts; Orama's sorter would keep every value (bodies too) again.
    sort: { enabled: false },
    // Stop words carry no ranking signal and have the longest posting lists.
    components: { tokenizer: { language: "english", stemming: true, stopWords: [...STOP_WORDS] } },
  }) as Orama<typeof SCHEMA>;
  return { orama, tf: new TfStore() };
}

export const indexData = (db: SiteDb) => db.orama.data.index as unknown as IndexData;

const internalId = (db: SiteDb, id: string): number | undefined =>
  (db.orama.internalDocumentIDStore as unknown as { idToInternalId: Map<string, number> })
    .idToInternalId.get(id);

/** Indexes a document, keeping its term frequencies and text compactly. */
export function addDoc(db: SiteDb, doc: Doc) {
  const stored: StoredDoc = { ...doc };
  insert(db.orama, stored as Doc);
  stored.body = pack(doc.body);
  const id = internalId(db, doc.id)!;
  const data = indexData(db);
  for (const prop of PROPS) {
    const freq = data.frequencies[prop][id];
    if (freq) db.tf.take(prop, id, freq);
    data.frequencies[prop][id] = undefined;
  }
}

const stored = (db: SiteDb, id: number) =>
  (db.orama.data.docs as unknown as { docs: Record<number, StoredDoc | undefined> }).docs[id];

/** Removes a document, if present. */
export function removeDoc(db: SiteDb, id: string) {
  const internal = internalId(db, id);
  if (internal === undefined) return;
  db.tf.drop(internal);
  const doc = stored(db, internal);
  if (!doc) return;
  doc.body = unpack(doc.body); // Orama tokenizes the text again to take it out of the index
  remove(db.orama, id);
}

/** The document for an internal id, with (at most the first `maxChars` of) its text. */
export function docAt(db: SiteDb, id: number, maxChars = Infinity): Doc {
  const doc = stored(db, id)!;
  return { ...doc, body: unpack(doc.body, maxChars) };
}

/** Number of documents indexed. */
export const docCount = (db: SiteDb) => db.orama.documentsStore.count(db.orama.data.docs);
