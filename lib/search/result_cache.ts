/**
 * Encoded search responses per site, keyed by everything that shapes the body, the site's
 * index version first: an upsert or delete bumps the version, so no entry from before it
 * can answer again, and once an answer of the new version is stored the site's older
 * entries are dropped at once (they could never be asked for). Live search repeats and
 * refines queries; a hit skips ranking, highlighting and JSON. Bounded in bytes; the least
 * recently used entry goes first.
 */

import { UseOrder } from "../use_order.ts";

export interface CachedBody {
  bytes: Uint8Array<ArrayBuffer>;
  /** Total matches, for callers that count searches with no results. */
  found: number;
}

const SEP = "\u0000";

export class ResultCache {
  #entries = new UseOrder<string, CachedBody>();
  #bytes = 0;
  /** Per site: the newest index version stored, and the keys stored for it. */
  #sites = new Map<string, { version: number; keys: Set<string> }>();

  constructor(readonly maxBytes = 32 * 1024 * 1024) {}

  /**
   * The key of one response: site, index version, plan, the version of the site's synonyms
   * and curations (lib/levers), and the normalised parameters.
   */
  static key({ site, version, plan, q, page, perPage, levers = 0, narrowing = "" }: {
    site: string;
    version: number;
    plan: string;
    q: string;
    page: number;
    perPage: number;
    /** The version of the site's levers. */
    levers?: number;
    /** Filters and facets asked (one text for the same ones in any order), "" for none. */
    narrowing?: string;
  }) {
    return `${site}${SEP}${version}${SEP}${plan}${SEP}${levers}${SEP}${narrowing}${SEP}${page}${SEP}${perPage}${SEP}${q}`;
  }

  get(key: string): CachedBody | undefined {
    const hit = this.#entries.get(key);
    if (hit) this.#entries.use(key, hit);
    return hit;
  }

  set(key: string, value: CachedBody): void {
    const size = value.bytes.byteLength + key.length * 2;
    if (size > this.maxBytes / 8) return; // one huge page of results never flushes the rest
    const [site, v] = key.split(SEP, 2);
    const version = Number(v);
    const tracked = v !== undefined && Number.isFinite(version);
    let known = tracked ? this.#sites.get(site) : undefined;
    if (known && version < known.version) return; // read from an index since caught up
    if (known && version > known.version) {
      for (const k of [...known.keys]) this.#delete(k);
      known = undefined;
    }
    this.#delete(key);
    this.#entries.set(key, value);
    this.#bytes += size;
    if (tracked) {
      known ??= this.#sites.get(site);
      if (!known) this.#sites.set(site, known = { version, keys: new Set() });
      known.keys.add(key);
    }
    for (const k of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#delete(k);
    }
  }

  #delete(key: string) {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#entries.delete(key);
    this.#bytes -= old.bytes.byteLength + key.length * 2;
    const siteId = key.slice(0, key.indexOf(SEP));
    const site = this.#sites.get(siteId);
    if (site?.keys.delete(key) && site.keys.size === 0) this.#sites.delete(siteId);
  }

  /** Bytes held now (keys counted at two bytes a character). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}
