/**
 * A site's levers as searches use them: read from KV (store.ts), compiled once, and kept in
 * memory. A change made here holds here at once; another instance's change is noticed by a
 * check of the heads at most `staleMs` old, so every search shows it within a second. A check
 * that finds the site's change mark where it was reads no head (storage/change_marks.ts).
 */
import { type Clock, REREAD_AT, STALE_MS, WARM_MS } from "../clock.ts";
import type { Expand } from "../search/mod.ts";
import { compileCurations, type Curation } from "./curations.ts";
import { type AnswerPin, compileAnswerPins } from "./answer_pins.ts";
import type { Equivalence, Placement } from "../search/engine/mod.ts";
import { LeverStore, type ListKind, type Stored } from "./store.ts";
import { compileSynonyms, type Synonym } from "./synonyms.ts";
import { compileNames, withNames } from "./url_names.ts";
import { UseOrder } from "../use_order.ts";
import { type ChangeMarks, changeMarks, type Stamp } from "../storage/change_marks.ts";

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
  /** Names the site's URLs give its pages (url_names.ts), published by its crawls. */
  names: Equivalence[];
  /** The owner's synonyms alone. */
  synonymExpand?: Expand;
  /** What searches use: the owner's synonyms, then the URL names. */
  expand?: Expand;
  place?: (q: string) => Placement | null;
  /** The owner's answer pins, and the lookup of a question's. */
  answers: AnswerPin[];
  answerFor?: (question: string) => AnswerPin | null;
  checkedAt: number;
  /** The site's change mark read with the heads; undefined after a change made here. */
  stamp?: Stamp;
}

type Lists = {
  synonyms: Stored<Synonym>;
  curations: Stored<Curation>;
  names: Stored<Equivalence>;
  answers: Stored<AnswerPin>;
};

/**
 * Levers checked within `staleMs` × this are used while a new check runs: the time a site's
 * levers are trusted, of which REREAD_AT passes before a site searched within WARM_MS is
 * checked again ahead of need (clock.ts).
 */
const QUIET_FACTOR = 2;
const KINDS: ListKind[] = ["synonyms", "curations", "names", "answers"];

/** Sites whose levers stay compiled in memory (least recently used go first). */
const MAX_SITES = 2_000;

export class Levers {
  readonly store: LeverStore;
  #sites = new UseOrder<string, SiteLevers>();
  #checks = new Map<string, Promise<SiteLevers>>();
  /** When a visitor's search last used each site's levers, and its check ahead of need. */
  #used = new Map<string, number>();
  #ahead = new Map<string, ReturnType<typeof setTimeout>>();
  #closed = false;
  #marks: ChangeMarks;

  constructor(kv: Deno.Kv, private clock: Clock, private staleMs = STALE_MS) {
    this.store = new LeverStore(kv);
    this.#marks = changeMarks(kv);
  }

  /** A site's levers, checked against KV when the last check is older than `staleMs`. */
  current(site: string): Promise<SiteLevers> {
    const fresh = this.#fresh(site);
    if (fresh) return Promise.resolve(fresh);
    const have = this.#sites.get(site);
    const check = this.#checkNow(site, have);
    // A site being searched (checked lately) is answered at once while its check runs: what
    // it uses was read under 1 s ago, so every search shows each change made 1 s before it.
    if (have && this.clock() - have.checkedAt < this.staleMs * QUIET_FACTOR) {
      check.catch(() => {});
      return Promise.resolve(have);
    }
    return check;
  }

  /** A site's levers when checked within `staleMs` (the most recently used now), else undefined. */
  #fresh(site: string): SiteLevers | undefined {
    const have = this.#sites.get(site);
    if (!have || this.clock() - have.checkedAt >= this.staleMs) return;
    this.#sites.use(site, have);
    return have;
  }

  /** Starts a check of the site's levers against KV, or joins the one running. */
  #checkNow(site: string, have: SiteLevers | undefined): Promise<SiteLevers> {
    let check = this.#checks.get(site); // searches that arrive together share one check
    if (!check) {
      check = this.#check(site, have).finally(() => this.#checks.delete(site));
      this.#checks.set(site, check);
    }
    return check;
  }

  async #check(site: string, have: SiteLevers | undefined): Promise<SiteLevers> {
    const renewed = have
      ? await this.#marks.renewed(site, have.stamp, have.checkedAt, this.clock)
      : null;
    if (have && renewed !== null) {
      have.checkedAt = renewed;
      return have;
    }
    const { versions, stamp } = await this.store.marked(site);
    if (have && KINDS.every((k) => have.versions[k] === versions[k])) {
      have.checkedAt = this.clock();
      have.stamp = stamp;
      return have;
    }
    return this.#keep(site, await this.#read(site, have, versions), stamp);
  }

  /** Every list of a site: those at the versions `have` holds from it, the others from KV. */
  async #read(site: string, have?: SiteLevers, versions?: Record<ListKind, number>) {
    const one = <T>(kind: ListKind, items: T[] | undefined): Promise<Stored<T>> =>
      have && versions && have.versions[kind] === versions[kind]
        ? Promise.resolve({ version: versions[kind], items: items! })
        : this.store.read<T>(site, kind);
    const [synonyms, curations, names, answers] = await Promise.all([
      one("synonyms", have?.synonyms),
      one("curations", have?.curations),
      one("names", have?.names),
      one("answers", have?.answers),
    ]);
    return { synonyms, curations, names, answers } as Lists;
  }

  /** `stamp`: the change mark read with the heads the lists were read at (none: a change here). */
  #keep(site: string, lists: Lists, stamp?: Stamp) {
    const was = this.#sites.get(site);
    // A check that read KV before a change made here lands after it: each list keeps the newer.
    const pick = <K extends ListKind>(k: K) =>
      was && was.versions[k] > lists[k].version
        ? { version: was.versions[k], items: was[k] }
        : lists[k];
    const [syn, cur, names] = [pick("synonyms"), pick("curations"), pick("names")];
    const answers = pick("answers");
    // Compiled again only for the list that changed.
    const synonymExpand = was?.versions.synonyms === syn.version
      ? was.synonymExpand
      : compileSynonyms(syn.items as Synonym[]);
    const sameExpand = was?.versions.synonyms === syn.version &&
      was.versions.names === names.version;
    const fresh: SiteLevers = {
      versions: {
        synonyms: syn.version,
        curations: cur.version,
        names: names.version,
        answers: answers.version,
      },
      synonyms: syn.items as Synonym[],
      curations: cur.items as Curation[],
      names: names.items as Equivalence[],
      synonymExpand,
      expand: sameExpand
        ? was.expand
        : withNames(synonymExpand, compileNames(names.items as Equivalence[])),
      place: was?.versions.curations === cur.version
        ? was.place
        : compileCurations(cur.items as Curation[]),
      answers: answers.items as AnswerPin[],
      answerFor: was?.versions.answers === answers.version
        ? was.answerFor
        : compileAnswerPins(answers.items as AnswerPin[]),
      checkedAt: this.clock(),
      stamp,
    };
    this.#sites.use(site, fresh);
    for (const old of this.#sites.keys()) {
      if (this.#sites.size <= MAX_SITES) break;
      this.#sites.delete(old);
    }
    return fresh;
  }

  /** Replaces a site's synonyms; they hold in this instance's searches at once. */
  putSynonyms(site: string, list: Synonym[]): Promise<SiteLevers> {
    return this.#put(site, "synonyms", list);
  }

  /** Replaces a site's curations; they hold in this instance's searches at once. */
  putCurations(site: string, list: Curation[]): Promise<SiteLevers> {
    return this.#put(site, "curations", list);
  }

  /** Replaces a site's answer pins; they hold in this instance's answers at once. */
  putAnswers(site: string, list: AnswerPin[]): Promise<SiteLevers> {
    return this.#put(site, "answers", list);
  }

  /** The answer the owner pinned for a question, if any (none when KV cannot be read). */
  async answerPin(site: string, question: string): Promise<AnswerPin | null> {
    return (await this.#forVisitor(site))?.answerFor?.(question) ?? null;
  }

  /** Replaces the names a site's URLs give its pages (a crawl's, or one the owner dropped). */
  putNames(site: string, list: Equivalence[]): Promise<SiteLevers> {
    return this.#put(site, "names", list);
  }

  async #put<T>(site: string, kind: ListKind, items: T[]): Promise<SiteLevers> {
    const version = await this.store.write(site, kind, items);
    const lists = await this.#read(site);
    return this.#keep(site, { ...lists, [kind]: { version, items } });
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

  /**
   * What a search for `q` on a site takes from its levers: at once (not as a promise) when they
   * were checked within `staleMs`, so a search answered from the result cache waits for nothing.
   */
  forQuery(site: string, q: string): QueryLevers | Promise<QueryLevers> {
    const fresh = this.#fresh(site);
    if (fresh) return this.#forSearch(site, fresh, q);
    return this.#forVisitor(site).then((l) => l ? this.#forSearch(site, l, q) : { version: -1 });
  }

  #forSearch(site: string, l: SiteLevers, q: string): QueryLevers {
    this.#used.set(site, this.clock());
    this.#checkAhead(site, l);
    return leversFor(l, q);
  }

  /**
   * Checks a site's levers again before its check gets too old to answer from at once, while a
   * visitor searched it within WARM_MS. A search's own check meanwhile (a site searched all the
   * time checks at each staleMs) moves the time: one read a period, not two. Not after a failed
   * check, nor on a clock that has not moved (the next search arms it again): never a loop.
   */
  #checkAhead(site: string, have: SiteLevers) {
    if (this.#closed || this.#ahead.has(site)) return;
    const checkedAt = have.checkedAt;
    const due = () => have.checkedAt + this.staleMs * QUIET_FACTOR * REREAD_AT;
    const timer = setTimeout(() => {
      this.#ahead.delete(site);
      const used = this.#used.get(site) ?? -Infinity;
      // Not warm, or replaced meanwhile: the next search arms it again.
      if (this.clock() - used >= WARM_MS || this.#sites.get(site) !== have) {
        return void this.#used.delete(site);
      }
      if (this.clock() < due()) {
        // Checked again since it was armed: wait for the new time. Else the clock stood still.
        if (have.checkedAt !== checkedAt) this.#checkAhead(site, have);
        else this.#used.delete(site);
        return;
      }
      // The check renews `have` itself when nothing changed: compared with the time before it,
      // not with `have`, so the next check ahead is armed while the site stays warm.
      const before = have.checkedAt;
      this.#checkNow(site, have)
        .then((l) => l.checkedAt > before && this.#checkAhead(site, l))
        .catch(() => {});
    }, Math.max(0, due() - this.clock()));
    Deno.unrefTimer(timer); // never keeps the process alive
    this.#ahead.set(site, timer);
  }

  /** Stops the checks ahead of need (shutdown). */
  close() {
    this.#closed = true;
    for (const timer of this.#ahead.values()) clearTimeout(timer);
    this.#ahead.clear();
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
    // Each only grows, so their sum moves whenever one does.
    version: l.versions.synonyms + l.versions.curations + l.versions.names,
    expand: l.expand,
    placement: l.place?.(q) ?? undefined,
  };
}
