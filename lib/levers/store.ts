/**
 * The levers' lists in KV: one head per site and list (its version, and where its text is)
 * and the list's JSON in chunks, each far below KV's 64 KiB a value. A new list is written
 * under a new generation and the head moved to it in one check-and-set, so a reader sees
 * the old list or the new one whole, never a mix; the old chunks go after.
 */
import { readMarked, type Stamp, withMark } from "../storage/change_marks.ts";

export type ListKind = "synonyms" | "curations" | "names" | "answers";

interface Head {
  version: number;
  gen: string;
  chunks: number;
}

/** Characters per chunk: at most 4 bytes each in UTF-8, so a chunk stays under 64,000 bytes. */
const CHUNK_CHARS = 16_000;
const SPACE = "levers";
const headKey = (site: string, kind: ListKind) => [SPACE, site, kind];
const chunkPrefix = (site: string, kind: ListKind, gen: string) => [SPACE, site, kind, gen];

/** A list as stored: its version (0 before the first write) and items. */
export interface Stored<T> {
  version: number;
  items: T[];
}

export class LeverStore {
  constructor(private kv: Deno.Kv) {}

  /** The versions of a site's lists and its change mark, in one read (storage/change_marks.ts). */
  async marked(site: string): Promise<{ versions: Record<ListKind, number>; stamp: Stamp }> {
    const kinds = ["synonyms", "curations", "names", "answers"] as const;
    const [heads, stamp] = await readMarked(this.kv, site, kinds.map((k) => headKey(site, k)));
    const version = (i: number) => (heads[i].value as Head | null)?.version ?? 0;
    return {
      versions: {
        synonyms: version(0),
        curations: version(1),
        names: version(2),
        answers: version(3),
      },
      stamp,
    };
  }

  /** One list whole, at the version its head names. */
  async read<T>(site: string, kind: ListKind): Promise<Stored<T>> {
    for (let attempt = 0;; attempt++) {
      const head = (await this.kv.get<Head>(headKey(site, kind))).value;
      if (!head) return { version: 0, items: [] };
      const parts: string[] = [];
      for await (const e of this.kv.list<string>({ prefix: chunkPrefix(site, kind, head.gen) })) {
        parts.push(e.value);
      }
      // A write replaced this generation between the two reads: read the new head.
      if (parts.length === head.chunks) {
        return { version: head.version, items: JSON.parse(parts.join("")) };
      }
      if (attempt >= 3) throw new Error(`levers: ${kind} of ${site} changed during every read`);
    }
  }

  /** Replaces a list; resolves to its new version. */
  async write<T>(site: string, kind: ListKind, items: T[]): Promise<number> {
    const json = JSON.stringify(items);
    const gen = crypto.randomUUID();
    const chunks: string[] = [];
    for (let i = 0; i < json.length; i += CHUNK_CHARS) chunks.push(json.slice(i, i + CHUNK_CHARS));
    await Promise.all(chunks.map((c, i) => this.kv.set([...chunkPrefix(site, kind, gen), i], c)));
    for (;;) {
      const cur = await this.kv.get<Head>(headKey(site, kind));
      const version = (cur.value?.version ?? 0) + 1;
      const head: Head = { version, gen, chunks: chunks.length };
      const ok = await withMark(this.kv.atomic(), site).check(cur).set(headKey(site, kind), head)
        .commit();
      if (!ok.ok) continue; // another write came first: ours goes on top of it
      if (cur.value) await this.#deleteGen(site, kind, cur.value.gen);
      return version;
    }
  }

  async #deleteGen(site: string, kind: ListKind, gen: string) {
    const keys: Deno.KvKey[] = [];
    for await (const e of this.kv.list({ prefix: chunkPrefix(site, kind, gen) })) keys.push(e.key);
    for (let i = 0; i < keys.length; i += 100) {
      const op = this.kv.atomic();
      for (const k of keys.slice(i, i + 100)) op.delete(k);
      await op.commit();
    }
  }
}
