/**
 * A site's levers as searches use them: read from KV (store.ts), compiled once, and kept in
 * memory. A change made here holds here at once; another instance's change is noticed by a
 * check of the heads at most `staleMs` old, so every search shows it within a second.
 */
import type { Clock } from "../clock.ts";
import type { Expand } from "../search/mod.ts";
import { compileCurations, type Curation, type Placement } from "./curations.ts";
import { LeverStore, type ListKind } from "./store.ts";
import { compileSynonyms, type Synonym } from "./synonyms.ts";

/** What one search takes from a site's levers. */
export interface QueryLevers {
  /** Moves whenever a synonym or curation changes: part of the result cache's key. */
  version: number;
  expand?: Expand;
  placement?: Placement;
}

interface SiteLevers {
  versions: Record<ListKind, number>;
  synonyms: Synonym[];
  curations: Curation[];
  expand?: Expand;
  place?: (q: string) => Placement | null;
  checkedAt: number;
}

/** Levers checked within `staleMs` × this are used while a new check runs. */
const QUIET_FACTOR = 2;
/** Sites whose levers stay compiled in memory (least recently used go first). */
const MAX_SITES = 2_000;

export class Levers {
  readonly store: LeverStore;
  #sites = new Map<string, SiteLevers>();
  #checks = new Map<string, Promise<SiteLevers>>();

  constructor(kv: Deno.Kv, private clock: Clock, private staleMs = 500) {
    this.store = new LeverStore(kv);
  }

  /** A site's levers, checked against KV when the last check is older than `staleMs`. */
  current(site: string): Promise<SiteLevers> {
    const have = this.#sites.get(site);
    if (have && this.clock() - have.checkedAt < this.staleMs) {
      this.#sites.delete(site);
      this.#sites.set(site, have);
      return Promise.resolve(have);
    }
    // Searches that arrive together share one check.
    let check = this.#checks.get(site);
    if (!check) {
      check = this.#check(site, have).finally(() => this.#checks.delete(site));
      this.#checks.set(site, check);
    }
    // A site being searched (checked lately) is answered at once while its check runs: what
    // it uses was read under 1 s ago, so every search shows each change made 1 s before it.
    if (have && this.clock() - have.checkedAt < this.staleMs * QUIET_FACTOR) {
      check.catch(() => {});
      return Promise.resolve(have);
    }
    return check;
  }

  async #check(site: string, have: SiteLevers | undefined): Promise<SiteLevers> {
    const versions = await this.store.versions(site);
    if (
      have && have.versions.synonyms === versions.synonyms &&
      have.versions.curations === versions.curations
    ) {
      have.checkedAt = this.clock();
      return have;
    }
    const [syn, cur] = await Promise.all([
      have?.versions.synonyms === versions.synonyms
        ? { version: versions.synonyms, items: have.synonyms }
        : this.store.read<Synonym>(site, "synonyms"),
      have?.versions.curations === versions.curations
        ? { version: versions.curations, items: have.curations }
        : this.store.read<Curation>(site, "curations"),
    ]);
    return this.#keep(site, syn.version, syn.items, cur.version, cur.items);
  }

  #keep(site: string, sv: number, synonyms: Synonym[], cv: number, curations: Curation[]) {
    const was = this.#sites.get(site);
    // A check that read KV before a change made here lands after it: each list keeps the newer.
    if (was && was.versions.synonyms > sv) [sv, synonyms] = [was.versions.synonyms, was.synonyms];
    if (was && was.versions.curations > cv) {
      [cv, curations] = [was.versions.curations, was.curations];
    }
    // Compiled again only for the list that changed.
    const fresh: SiteLevers = {
      versions: { synonyms: sv, curations: cv },
      synonyms,
      curations,
      expand: was?.versions.synonyms === sv ? was.expand : compileSynonyms(synonyms),
      place: was?.versions.curations === cv ? was.place : compileCurations(curations),
      checkedAt: this.clock(),
    };
    this.#sites.delete(site);
    this.#sites.set(site, fresh);
    for (const old of this.#sites.keys()) {
      if (this.#sites.size <= MAX_SITES) break;
      this.#sites.delete(old);
    }
    return fresh;
  }

  /** Replaces a site's synonyms; they hold in this instance's searches at once. */
  async putSynonyms(site: string, list: Synonym[]): Promise<SiteLevers> {
    const version = await this.store.write(site, "synonyms", list);
    const cur = await this.store.read<Curation>(site, "curations");
    return this.#keep(site, version, list, cur.version, cur.items);
  }

  /** Replaces a site's curations; they hold in this instance's searches at once. */
  async putCurations(site: string, list: Curation[]): Promise<SiteLevers> {
    const version = await this.store.write(site, "curations", list);
    const syn = await this.store.read<Synonym>(site, "synonyms");
    return this.#keep(site, syn.version, syn.items, version, list);
  }

  /**
   * The levers a visitor's search or answer uses: when KV cannot be read, the last ones read
   * (or none), so an owner's lists never make a visitor's search fail.
   */
  async #forVisitor(site: string): Promise<SiteLevers | undefined> {
    try {
      return await this.current(site);
    } catch {
      return this.#sites.get(site);
    }
  }

  /** What a search for `q` on a site takes from its levers. */
  async forQuery(site: string, q: string): Promise<QueryLevers> {
    const l = await this.#forVisitor(site);
    return l ? leversFor(l, q) : { version: -1 };
  }

  /** Pages a curation hides for this query (an AI answer never cites them). */
  async hiddenFor(site: string, q: string): Promise<Set<string>> {
    return (await this.#forVisitor(site))?.place?.(q)?.hide ?? new Set();
  }
}

/** The levers of one query, from lists (stored or, for a preview, unsaved). */
export function leversFor(
  l: {
    versions: Record<ListKind, number>;
    expand?: Expand;
    place?: (q: string) => Placement | null;
  },
  q: string,
): QueryLevers {
  return {
    // Both only grow, so their sum moves whenever either does.
    version: l.versions.synonyms + l.versions.curations,
    expand: l.expand,
    placement: l.place?.(q) ?? undefined,
  };
}
