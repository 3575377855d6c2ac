/**
 * A site's index as bytes, for snapshots (snapshot.ts). Provisional: Orama's own
 * save/load for its trees and document ids, the statistics site_db.ts keeps beside them,
 * and the documents' texts and typed arrays as raw bytes after the JSON (not escaped
 * into it). Layout: magic, codec version, JSON length, JSON, then the bytes it points to.
 */
import { load, save } from "@orama/orama";
import { createSiteDb, FIELDS, type SiteDb } from "./site_db.ts";

/** Bumped whenever the layout changes: a snapshot of another version is never decoded. */
export const CODEC_VERSION = 1;

const MAGIC = 0x53534442; // "SSDB"
const HEAD_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Internals of the classes site_db.ts uses, read and written as they are. */
interface TfEntry {
  tokens: string[];
  tfs: Float32Array;
}
type TfInternals = { byProp: Map<string, Map<number, TfEntry>> };
type TrigramInternals = { bits: Uint8Array };
type Stored = Record<string, unknown> & { body: string | Uint8Array; sectionAt?: Int32Array };
type DocsStore = { docs: Record<number, Stored | undefined>; count: number };

/** Raw byte runs appended after the JSON; the JSON holds [offset, length] pairs into them. */
class Blob {
  parts: Uint8Array[] = [];
  size = 0;
  put(bytes: Uint8Array): [number, number] {
    const at = this.size;
    this.parts.push(bytes);
    this.size += bytes.length;
    // Keep every run 4-aligned so Int32 and Float32 views need no copy on the way in.
    const pad = (4 - (bytes.length & 3)) & 3;
    if (pad) this.parts.push(new Uint8Array(pad)), this.size += pad;
    return [at, bytes.length];
  }
}

const asBytes = (a: Int32Array | Float32Array) =>
  new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The bytes of a site's index. */
export function encodeSiteDb(db: SiteDb): Uint8Array {
  const blob = new Blob();
  const orama = save(db.ix.orama) as unknown as Record<string, unknown> & { docs: DocsStore };
  const docs: unknown[] = [];
  for (const [id, doc] of Object.entries(orama.docs.docs)) {
    if (!doc) continue;
    const { body, sectionAt, ...rest } = doc;
    const packed = typeof body !== "string";
    docs.push([
      Number(id),
      rest,
      blob.put(packed ? body : encoder.encode(body)),
      packed,
      sectionAt ? blob.put(asBytes(sectionAt)) : null,
    ]);
  }
  // Each token once, in a table; documents name theirs by number.
  const tokens = new Map<string, number>();
  const tf: unknown[] = [];
  for (const [prop, map] of (db.tf as unknown as TfInternals).byProp) {
    for (const [id, e] of map) {
      const ids = Int32Array.from(e.tokens, (t) => {
        let n = tokens.get(t);
        if (n === undefined) tokens.set(t, n = tokens.size);
        return n;
      });
      tf.push([prop, id, blob.put(asBytes(ids)), blob.put(asBytes(e.tfs))]);
    }
  }
  const json = {
    orama: { ...orama, docs: { count: orama.docs.count } },
    docs,
    tokens: [...tokens.keys()],
    tf,
    lengths: FIELDS.map((f) => [...db.lengths[f]]),
    totals: db.totals,
    vocab: [...db.vocab],
    alphabet: [...db.alphabet],
    trigrams: blob.put((db.trigrams as unknown as TrigramInternals).bits),
    langs: [...db.langs],
    prior: [...db.prior],
  };
  const text = encoder.encode(JSON.stringify(json));
  const start = HEAD_BYTES + text.length + ((4 - (text.length & 3)) & 3);
  const out = new Uint8Array(start + blob.size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC);
  view.setUint32(4, CODEC_VERSION);
  view.setUint32(8, text.length);
  out.set(text, HEAD_BYTES);
  let at = start;
  for (const p of blob.parts) out.set(p, at), at += p.length;
  return out;
}

class Corrupt extends Error {
  constructor(what: string) {
    super(`corrupt index snapshot: ${what}`);
  }
}

/** The site's index from its bytes; throws on bytes this codec did not write. */
export function decodeSiteDb(bytes: Uint8Array): SiteDb {
  if (bytes.length < HEAD_BYTES) throw new Corrupt("too short");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== MAGIC) throw new Corrupt("not a snapshot");
  if (view.getUint32(4) !== CODEC_VERSION) throw new Corrupt("another codec version");
  const len = view.getUint32(8);
  const start = HEAD_BYTES + len + ((4 - (len & 3)) & 3);
  if (start > bytes.length) throw new Corrupt("truncated");
  // deno-lint-ignore no-explicit-any
  const json = JSON.parse(decoder.decode(bytes.subarray(HEAD_BYTES, HEAD_BYTES + len))) as any;
  const run = ([at, n]: [number, number]) => {
    if (!(at >= 0 && n >= 0 && start + at + n <= bytes.length)) throw new Corrupt("bad offset");
    return bytes.subarray(start + at, start + at + n);
  };
  // Copies, so the snapshot's buffer is not kept alive by the index.
  const int32 = (r: [number, number]) => new Int32Array(run(r).slice().buffer);
  const float32 = (r: [number, number]) => new Float32Array(run(r).slice().buffer);

  const db = createSiteDb();
  const docs: Record<number, Stored> = {};
  for (const [id, rest, body, packed, sectionAt] of json.docs) {
    const doc: Stored = { ...rest, body: packed ? run(body).slice() : decoder.decode(run(body)) };
    if (sectionAt) doc.sectionAt = int32(sectionAt);
    docs[id] = doc;
  }
  load(db.ix.orama, { ...json.orama, docs: { docs, count: json.orama.docs.count } });
  const tf = db.tf as unknown as TfInternals;
  // Every document's tokens share one string per token, as a build leaves them.
  const table: string[] = json.tokens;
  for (const [prop, id, ids, tfs] of json.tf) {
    let map = tf.byProp.get(prop);
    if (!map) tf.byProp.set(prop, map = new Map());
    const numbers = run(ids);
    // A view where the bytes are aligned (the codec's bytes may start anywhere), else a copy.
    const view = numbers.byteOffset & 3
      ? new Int32Array(numbers.slice().buffer)
      : new Int32Array(numbers.buffer, numbers.byteOffset, numbers.length >> 2);
    const tokens = new Array<string>(view.length);
    for (let i = 0; i < view.length; i++) {
      const t = table[view[i]];
      if (t === undefined) throw new Corrupt("token");
      tokens[i] = t;
    }
    map.set(id, { tokens, tfs: float32(tfs) });
  }
  FIELDS.forEach((f, i) => db.lengths[f] = new Map(json.lengths[i]));
  db.totals = json.totals;
  db.vocab = new Map(json.vocab);
  db.alphabet = new Set(json.alphabet);
  const bits = (db.trigrams as unknown as TrigramInternals).bits;
  const saved = run(json.trigrams);
  if (saved.length !== bits.length) throw new Corrupt("trigrams");
  bits.set(saved);
  db.langs = new Map(json.langs);
  db.prior = new Map(json.prior);
  return db;
}
