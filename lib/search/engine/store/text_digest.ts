/**
 * What names a page's text for caches that outlive an index and span every site's: a digest
 * strong enough that no page can be written to share another's.
 */
import { createHash } from "node:crypto";
import type { PackedSections } from "./packed_sections.ts";

/** What the digest covers: all that passages and stated names are read from. */
export interface DigestedText {
  body: Uint8Array;
  lang: string;
  sections?: PackedSections;
}

/** Bytes of a page's digest: 128 bits of SHA-256, so no page can be made to share another's. */
export const DIGEST_BYTES = 16;

/**
 * A digest of all of a page's text that passages and stated names are read from (its packed
 * body, sections and language), made once when the page is indexed: the caches one process
 * keeps over every site's indexes (query/passages.ts, stated.ts) are keyed by it, so an entry
 * is right for any page that finds it, whichever site the page is of.
 */
export function textDigest(doc: DigestedText): Uint8Array {
  const h = createHash("sha256");
  const rest = [doc.lang, doc.sections?.headings ?? "", doc.sections?.anchors ?? ""];
  // Every part's length first: no two different texts join into the same bytes.
  h.update([doc.body.length, ...rest.map((s) => s.length)].join(",") + "\u0000");
  h.update(doc.body);
  h.update(rest.join(""));
  return Uint8Array.from(h.digest().subarray(0, DIGEST_BYTES));
}

/** A digest as text, for a key. */
export const hex = (bytes: Uint8Array) => {
  let out = "";
  for (const b of bytes) out += (b < 16 ? "0" : "") + b.toString(16);
  return out;
};
