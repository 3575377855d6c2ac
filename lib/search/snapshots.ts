/**
 * Snapshots of sites' search indexes in KV, so an index evicted from memory (or never
 * built on this instance) loads in a fraction of a rebuild. A snapshot is the codec's
 * bytes (snapshot_codec.ts) behind a small JSON of what indexes.ts keeps beside the
 * index, cut into chunks under KV's 64 KiB value limit. Chunks go under a new generation
 * first, then one atomic commit flips the head to it, then the old generation's chunks
 * are deleted: a reader sees a whole snapshot or the previous one, never a mix. The head
 * names the index version the snapshot holds; indexes.ts uses it only at that version
 * (or catches it up from the change log). Keys: ["snap" + prefix, site, …]: deleting a
 * site's key spaces in order (lib/sites/remove.ts) takes them after its version key
 * ("pagever" < "snappage"), and a save elsewhere flips its head only while that key
 * exists, so no snapshot lands after the sweep.
 */
import {
  CODEC_VERSION,
  copying,
  type DecodeOptions,
  decodeSiteDb,
  decodeStated,
  decodeTail,
  encodedLength,
  encodeTail,
  encodingSiteDb,
  type Extras,
  freeBytes,
  type PassageBlocks,
  runSteps,
  type SiteDb,
  SiteName,
} from "./engine/mod.ts";
import { randomBase62 } from "../sites/keys.ts";
import { versionKey } from "../sites/pages.ts";
import { releaseSoon } from "../memory_release.ts";

/** What indexes.ts keeps of a site's index, and the version of the pages it holds. */
export interface SavedIndex {
  db: SiteDb;
  version: number;
  names: SiteName;
  builtWith: string;
  builtPages: number;
}

/**
 * A saved index as a snapshot gives it back, with the long pages' passages it held and the
 * stated names mined from its pages (lines of JSON, read by query/stated.ts), if any.
 */
export interface LoadedIndex extends SavedIndex {
  passages?: PassageBlocks;
  stated?: Uint8Array;
}

/** An index's snapshot bytes and the version they hold. */
export interface Encoded {
  version: number;
  bytes: Uint8Array<ArrayBuffer>;
}

/** The one value a reader trusts: which generation is whole, and what it holds. */
export interface SnapshotHead {
  gen: string;
  version: number;
  codec: number;
  chunks: number;
  size: number;
  /** SHA-256 hex of the whole snapshot: a damaged or missing chunk is never decoded. */
  digest: string;
  /**
   * SHA-256 hex of the snapshot's first `HEAD_DIGEST_BYTES`: what sits beside the index and
   * the codec's header, whose checksum covers the rest (checked as it decodes). A load checks
   * this one where a head has it (one hash of the bytes instead of two), `digest` where not.
   */
  headDigest?: string;
  /**
   * Bytes at the end that hold the stated names (encodeStated), read into a buffer of their
   * own: the index's buffer, held as long as the index, does not keep them. None before them.
   */
  statedBytes?: number;
  savedAt: number;
}

/** Bytes a chunk holds: under KV's 64 KiB value limit. */
export const CHUNK_BYTES = 60_000;
/** Chunks per atomic commit: under KV's 800 KiB of mutations per commit. */
const CHUNKS_PER_COMMIT = 12;
/** Bytes past what sits beside the index that `headDigest` covers: the codec's header and more. */
const CODEC_HEAD_BYTES = 64;
/** A save of this many bytes or more frees its copy at once (memory_release.ts releaseSoon). */
const RELEASE_AFTER_BYTES = 4 << 20;
/** Chunks read per KV round trip when loading. */
const READ_BATCH = 500;
/**
 * Ranges of a snapshot's chunks read at once: a 15 MB snapshot of 2,000 pages from a KV file
 * in 17–22 ms with four, 23–25 ms in one list, 30–37 ms in getMany batches of ten.
 */
const READ_LANES = 4;
/** One instance saves a site at a time; a lease older than this (a crashed saver) is taken over. */
const LEASE_MS = 120_000;
/** A generation left unflipped this long is a crashed save's: its chunks are swept. */
const ORPHAN_MS = 10 * 60_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** How many of a snapshot's first bytes its `headDigest` covers. */
function headDigestBytes(bytes: Uint8Array): number {
  const extras = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  return Math.min(bytes.length, ((4 + extras + 7) & ~7) + CODEC_HEAD_BYTES);
}

/**
 * A snapshot's bytes: a u32 length, the JSON of what sits beside the index, the codec's bytes
 * (8-aligned), then the long pages' passages read by then (encodePassages), then the stated
 * names mined by then (encodeStated). A snapshot saved before either was kept has none: it
 * loads, and its pages are read or mined again.
 */
export function packIndex(idx: SavedIndex, extras: Extras = {}): Uint8Array<ArrayBuffer> {
  return runSteps(packingIndex(idx, extras));
}

/** `packIndex` in steps (the codec's, and the copy's). */
export function* packingIndex(
  idx: SavedIndex,
  extras: Extras = {},
): Generator<void, Uint8Array<ArrayBuffer>> {
  const beside = encoder.encode(JSON.stringify({
    names: idx.names.saved(),
    builtWith: idx.builtWith,
    builtPages: idx.builtPages,
  }));
  const db = yield* encodingSiteDb(idx.db);
  const tail = encodeTail(extras);
  yield;
  // The codec's bytes start 8-aligned, so its typed arrays can be views rather than copies.
  const start = (4 + beside.length + 7) & ~7;
  const out = new Uint8Array(start + db.length + tail.length);
  new DataView(out.buffer).setUint32(0, beside.length);
  out.set(beside, 4);
  yield* copying(out, db, start);
  out.set(tail, start + db.length);
  // Copied: the codec's bytes and the rest are freed now, not at V8's next collection.
  for (const part of [beside, db, tail]) freeBytes(part);
  return out;
}

/** Where the codec's bytes start in a snapshot, and where they end. */
function codecSpan(bytes: Uint8Array): [number, number] {
  const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  const start = (4 + n + 7) & ~7;
  return [start, start + encodedLength(bytes.subarray(start))];
}

/** Two byte runs as one (the first itself when the second is empty). */
function joined(a: Uint8Array<ArrayBuffer>, b: Uint8Array): Uint8Array<ArrayBuffer> {
  if (!b.length) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Bytes at the end of a snapshot that hold its stated names (0: none). */
function statedLength(bytes: Uint8Array): number {
  const [, end] = codecSpan(bytes);
  const tail = bytes.subarray(end);
  return tail.length ? tail.length - encodedLength(tail) : 0;
}

/**
 * A snapshot's bytes with other extras than those it holds (a copy), in steps: the tail made,
 * then the copy a megabyte at a time (7 MB took ~25 ms in one go).
 */
export function* withExtras(
  bytes: Uint8Array,
  extras: Extras,
): Generator<void, Uint8Array<ArrayBuffer>> {
  const [, end] = codecSpan(bytes);
  const tail = encodeTail(extras);
  yield;
  const out = new Uint8Array(end + tail.length);
  yield* copying(out, bytes.subarray(0, end), 0);
  out.set(tail, end);
  return out;
}

/**
 * What `packIndex` packed. `keepBodies`: where the pages' bodies are kept instead of in these
 * bytes (lib/storage/text_spill.ts); the index then holds nothing of them.
 */
export function unpackIndex(
  bytes: Uint8Array,
  version: number,
  keepBodies?: DecodeOptions["keepBodies"],
): LoadedIndex {
  const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  const extras = JSON.parse(decoder.decode(bytes.subarray(4, 4 + n)));
  const [start, end] = codecSpan(bytes);
  return {
    db: decodeSiteDb(bytes.subarray(start, end), { keepBodies }),
    // The passages are views of what they decode from: a copy, where the bytes are not held.
    ...decodeTail(keepBodies ? bytes.slice(end) : bytes.subarray(end)),
    version,
    names: SiteName.from(extras.names),
    builtWith: extras.builtWith,
    builtPages: extras.builtPages,
  };
}

/** Snapshots of one page store's indexes ("page" or "doc"). */
export class Snapshots {
  /** Sites this instance is saving now: never two saves of one site at once. */
  private saving = new Map<string, Promise<boolean>>();
  private owner = randomBase62(12);
  /** Generations found damaged here: saved over even at the same version. */
  private damaged = new Set<string>();

  constructor(
    private kv: Deno.Kv,
    private now: () => number,
    readonly prefix = "page",
    /**
     * Where loaded indexes keep their pages' bodies (lib/storage/text_spill.ts); in memory when
     * unset.
     */
    private keepBodies?: DecodeOptions["keepBodies"],
  ) {}

  private space = () => "snap" + this.prefix;
  private headKey = (site: string) => [this.space(), site, "head"];
  private leaseKey = (site: string) => [this.space(), site, "lease"];
  /** A generation being written, with when it started (for sweeping a crashed save's). */
  private genKey = (site: string, gen: string) => [this.space(), site, "gen", gen];
  private chunkPrefix = (site: string, gen: string) => [this.space(), site, "chunk", gen];

  /** The head of a site's snapshot, or null when there is none. */
  async head(site: string): Promise<SnapshotHead | null> {
    return (await this.kv.get<SnapshotHead>(this.headKey(site))).value;
  }

  /**
   * The saved index, if a whole snapshot of this codec exists at `version` or before it
   * (the caller catches an older one up or ignores it); null when there is none or it is
   * damaged.
   */
  async load(site: string, version: number): Promise<LoadedIndex | null> {
    return await this.loadAt(site, await this.head(site), version);
  }

  /** `load` with a head read beforehand (alongside the site's version: one round trip less). */
  async loadAt(
    site: string,
    head: SnapshotHead | null,
    version: number,
  ): Promise<LoadedIndex | null> {
    if (!head || head.codec !== CODEC_VERSION || head.version > version) return null;
    const saved = await this.read(site, head);
    if (!saved) this.damaged.add(head.gen);
    return saved;
  }

  private async read(site: string, head: SnapshotHead): Promise<LoadedIndex | null> {
    // The stated names go to a buffer of their own; the rest is the index's.
    const own = head.size - (head.statedBytes ?? 0);
    if (own < 0) return null;
    const bytes = new Uint8Array(own), tail = new Uint8Array(head.size - own);
    // Every chunk but the last holds CHUNK_BYTES: each lands in place, whichever lane reads it.
    const sizeOf = (i: number) => i === head.chunks - 1 ? head.size - i * CHUNK_BYTES : CHUNK_BYTES;
    const prefix = this.chunkPrefix(site, head.gen);
    const per = Math.ceil(head.chunks / READ_LANES);
    const lane = async (from: number, to: number) => {
      let count = 0;
      // The last range runs to the prefix's end: a stray chunk past the last is seen.
      const start = [...prefix, from];
      const iter = this.kv.list<Uint8Array>(
        to >= head.chunks ? { prefix, start } : { start, end: [...prefix, to] },
        { batchSize: READ_BATCH },
      );
      for await (const e of iter) {
        const i = from + count;
        if (e.key.at(-1) !== i || !(e.value instanceof Uint8Array)) return false;
        if (i >= head.chunks || e.value.length !== sizeOf(i)) return false;
        const at = i * CHUNK_BYTES, split = Math.max(0, Math.min(e.value.length, own - at));
        if (split > 0) bytes.set(e.value.subarray(0, split), at);
        if (split < e.value.length) tail.set(e.value.subarray(split), at + split - own);
        count++;
      }
      return count === Math.min(to, head.chunks) - from;
    };
    const lanes: Promise<boolean>[] = [];
    for (let from = 0; from < head.chunks; from += per) lanes.push(lane(from, from + per));
    // A save that flipped the head meanwhile has deleted these chunks: this copy is partial.
    if (!(await Promise.all(lanes)).every(Boolean)) return null;
    // The digest is computed while the bytes decode; a mismatch discards them. Where the head
    // has one, the digest of the first bytes: the codec's checksum covers the rest as it decodes.
    const digest = head.headDigest === undefined
      ? sha256(joined(bytes, tail)).then((d) => d === head.digest)
      : sha256(bytes.slice(0, headDigestBytes(bytes))).then((d) => d === head.headDigest);
    let saved: LoadedIndex | null = null;
    try {
      const stated = tail.length ? decodeStated(tail) : undefined;
      saved = { ...unpackIndex(bytes, head.version, this.keepBodies), stated };
    } catch {
      // damaged: the codec's checksum or the digest says so
    }
    const sound = await digest;
    // Decoded with the bodies kept elsewhere, the index holds a copy: these bytes are freed now.
    if (this.keepBodies) freeBytes(bytes);
    return sound ? saved : null;
  }

  /**
   * Saves an index unless a snapshot of its version is already there or another save of the
   * site is under way (here or on another instance). `encode` (packIndex at a moment the
   * index is not changing) runs only once a save is sure to happen, and answers bytes the save
   * alone holds (they are freed once written). True when this call wrote the snapshot.
   */
  save(site: string, version: number, encode: () => Promise<Encoded>): Promise<boolean> {
    if (this.saving.has(site)) return Promise.resolve(false);
    let size = 0;
    const encoded = () => encode().then((e) => (size = e.bytes.length, e));
    const run = this.write(site, version, encoded).finally(() => {
      this.saving.delete(site);
      // The saved copy of a large index is garbage now, long promoted: a major collection frees
      // it. A small one's waits for V8's own (a forced collection holds searches ~60 ms).
      if (size >= RELEASE_AFTER_BYTES) releaseSoon();
    });
    this.saving.set(site, run);
    return run;
  }

  /** Waits for a save of the site under way here, if any. */
  async settle(site: string): Promise<void> {
    await this.saving.get(site)?.catch(() => {});
  }

  private async write(
    site: string,
    version: number,
    encode: () => Promise<Encoded>,
  ): Promise<boolean> {
    const head = await this.kv.get<SnapshotHead>(this.headKey(site));
    const usable = head.value?.codec === CODEC_VERSION && !this.damaged.has(head.value.gen);
    if (usable && head.value!.version >= version) return false;
    const lease = await this.kv.get<{ owner: string; until: number }>(this.leaseKey(site));
    if (lease.value && lease.value.until > this.now() && lease.value.owner !== this.owner) {
      return false;
    }
    const until = this.now() + LEASE_MS;
    const took = await this.kv.atomic().check(lease)
      .set(this.leaseKey(site), { owner: this.owner, until }, { expireIn: LEASE_MS })
      .commit();
    if (!took.ok) return false;
    try {
      await this.sweepOrphans(site, head.value?.gen);
      const saved = await encode();
      const { bytes } = saved;
      const gen = `${this.now().toString(36)}${randomBase62(8)}`;
      await this.kv.set(this.genKey(site, gen), this.now());
      const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
      for (let i = 0; i < chunks; i += CHUNKS_PER_COMMIT) {
        const op = this.kv.atomic();
        for (let j = i; j < Math.min(chunks, i + CHUNKS_PER_COMMIT); j++) {
          op.set(
            [...this.chunkPrefix(site, gen), j],
            bytes.subarray(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES),
          );
        }
        await op.commit();
      }
      const next: SnapshotHead = {
        gen,
        version: saved.version,
        codec: CODEC_VERSION,
        chunks,
        size: bytes.length,
        digest: await sha256(bytes),
        headDigest: await sha256(bytes.slice(0, headDigestBytes(bytes))),
        statedBytes: statedLength(bytes),
        savedAt: this.now(),
      };
      // Written: the copy `encode` made for this save is freed now, not at a later collection.
      freeBytes(bytes);
      // The site must still exist (a deleted site's version key is gone), and no other save
      // may have flipped the head meanwhile.
      const ver = await this.kv.get(versionKey(this.prefix, site));
      const flipped = ver.versionstamp !== null && (await this.kv.atomic().check(head, ver)
        .set(this.headKey(site), next)
        .delete(this.genKey(site, gen))
        .commit()).ok;
      if (flipped && head.value) this.damaged.delete(head.value.gen);
      const old = flipped ? head.value?.gen : gen;
      if (old) {
        await this.deleteGen(site, old);
        if (!flipped) await this.kv.delete(this.genKey(site, gen));
      }
      return flipped;
    } finally {
      const mine = await this.kv.get<{ owner: string }>(this.leaseKey(site));
      if (mine.value?.owner === this.owner) {
        await this.kv.atomic().check(mine).delete(this.leaseKey(site)).commit();
      }
    }
  }

  /** Deletes a generation's chunks, a commit's worth at a time. */
  private async deleteGen(site: string, gen: string) {
    const prefix = this.chunkPrefix(site, gen);
    let done = false;
    for (let from = 0; !done; from += CHUNKS_PER_COMMIT * 40) {
      const op = this.kv.atomic();
      // Chunks are numbered from 0: delete by key, without reading their values.
      const head = await this.kv.get([...prefix, from]);
      if (!head.versionstamp) done = true;
      for (let j = from; j < from + CHUNKS_PER_COMMIT * 40; j++) op.delete([...prefix, j]);
      await op.commit();
    }
  }

  /** Sweeps generations a crashed save left unflipped. */
  private async sweepOrphans(site: string, current: string | undefined) {
    for await (const e of this.kv.list<number>({ prefix: [this.space(), site, "gen"] })) {
      const gen = e.key.at(-1) as string;
      if (gen === current || this.now() - e.value < ORPHAN_MS) continue;
      await this.deleteGen(site, gen);
      await this.kv.delete(e.key);
    }
  }
}
