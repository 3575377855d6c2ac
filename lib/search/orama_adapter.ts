/**
 * Every use of Orama's internals, in one place (Orama is pinned in deno.json;
 * tests/search/orama_adapter_test.ts fails loudly when an upgrade changes any of
 * this). Orama keeps the documents and, per text field, a radix tree from token
 * to documents for exact and prefix lookups. Its own scoring statistics are
 * switched off: its tokenizer's output is deduplicated, so its term frequencies
 * are 1/(distinct words); ranking reads the statistics site_db.ts keeps instead.
 */
import { components, create, insert, type Orama, remove } from "@orama/orama";

export const FIELDS = ["title", "description", "headings", "body"] as const;
export type Field = typeof FIELDS[number];

const SCHEMA = {
  title: "string",
  description: "string",
  headings: "string",
  body: "string",
} as const;

/** Splits one field's text into distinct tokens; Orama calls it on insert and on remove. */
export type FieldTokenizer = (text: string, language: string, field: Field) => string[];

/** The part of Orama's radix tree this project calls. */
interface RadixNode {
  find(p: { term: string; exact: boolean; tolerance: number }): Record<string, number[]>;
}

interface Internals {
  index: { indexes: Record<string, { node: RadixNode }> };
  docs: { docs: Record<number, unknown> };
}

export interface OramaIndex<D> {
  orama: Orama<typeof SCHEMA>;
  /** Phantom: the stored document type. */
  _doc?: D;
}

const noop = () => {};

/** An Orama database over the four text fields, tokenized by `tokenize`, without its scoring. */
export function createIndex<D extends { id: string }>(
  tokenize: FieldTokenizer,
): OramaIndex<D> {
  const orama = create({
    schema: SCHEMA,
    // Results are ordered by rank.ts; Orama's sorter would keep every value (bodies too) again.
    sort: { enabled: false },
    components: {
      tokenizer: {
        language: "english",
        normalizationCache: new Map(),
        tokenize: (raw: string, language?: string, prop?: string) =>
          tokenize(raw, language ?? "", prop as Field),
      },
      // Orama's BM25 statistics: kept by site_db.ts with real frequencies instead.
      index: {
        ...components.index.createIndex(),
        insertDocumentScoreParameters: noop,
        insertTokenScoreParameters: noop,
        removeDocumentScoreParameters: noop,
        removeTokenScoreParameters: noop,
      },
    },
  }) as Orama<typeof SCHEMA>;
  return { orama };
}

const internals = <D>(ix: OramaIndex<D>) => ix.orama.data as unknown as Internals;

/** Indexes a document (its `language` goes to the tokenizer); returns its internal id. */
export function insertDoc<D extends { id: string }>(ix: OramaIndex<D>, doc: D, language: string) {
  // deno-lint-ignore no-explicit-any
  insert(ix.orama, doc as any, language);
  return internalId(ix, doc.id)!;
}

/** Removes a document, tokenizing its stored fields again (they must be strings by now). */
export function removeDoc<D>(ix: OramaIndex<D>, id: string, language: string) {
  remove(ix.orama, id, language);
}

/** Orama's number for a document id. */
export function internalId<D>(ix: OramaIndex<D>, id: string): number | undefined {
  return (ix.orama.internalDocumentIDStore as unknown as { idToInternalId: Map<string, number> })
    .idToInternalId.get(id);
}

/** The stored document object (the very one inserted, so it may be changed in place). */
export function storedDoc<D>(ix: OramaIndex<D>, internal: number): D | undefined {
  return internals(ix).docs.docs[internal] as D | undefined;
}

/** Documents holding `token` in a field exactly, or every token starting with it. */
export function lookup<D>(
  ix: OramaIndex<D>,
  field: Field,
  token: string,
  prefix: boolean,
): Record<string, number[]> {
  return internals(ix).index.indexes[field].node.find({
    term: token,
    exact: !prefix,
    tolerance: 0,
  });
}

/** Number of documents. */
export const countDocs = <D>(ix: OramaIndex<D>) =>
  ix.orama.documentsStore.count(ix.orama.data.docs);
