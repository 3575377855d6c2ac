/**
 * Search analytics, counted in memory and written to KV in batches: a search costs no KV round
 * trip of its own. Every `flushMs` (and on `flush()`), the counts gathered since go out as
 * `sum` mutations, which add up correctly whatever other instances write meanwhile. Only
 * finished searches are counted: a typing session's requests wait in typing.ts for its last.
 */
import type { Clock } from "../clock.ts";
import {
  clickedPage,
  clickKey,
  clickPositionKey,
  dayOf,
  emptyQueryKey,
  emptyVisitorKey,
  formKey,
  type Metric,
  normalizeQuery,
  queryClickKey,
  reformulationKey,
  totalKey,
  typedForm,
} from "./keys.ts";
import { refines } from "../limits/sessions.ts";
import { noteRuns, type Pending, SETTLE_MS, settled, TypingSessions } from "./typing.ts";
import { OncePerVisitor } from "./once_per_visitor.ts";
import { TypedForms } from "./typed_forms.ts";
import { SearchCountIds } from "./search_counts.ts";

/** Who sent a search or a click: its typing session, and its address over the network. */
export interface Sender {
  session?: string;
  visitor?: string;
}

/**
 * Mutations per atomic commit (Deno KV allows 1,000). Small commits, one after another, let
 * a search's own KV reads in between: one commit of 500 holds them up for 5–20 ms.
 */
const PER_COMMIT = 100;

/** Counts searches, answers and clicks per site and day; writes them out in batches. */
export class Analytics {
  /** Off: nothing is counted (the benchmark's baseline). */
  enabled = true;
  /**
   * Counts by their key's parts written as JSON: one string a key until the flush (5 s, so
   * they outlive young collections), not the key's array and strings and a record as well.
   */
  private pending = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private typing = new TypingSessions();
  /** Reformulations and clicks counted once per visitor a day (suggestions are made of them). */
  private evidence = new OncePerVisitor();
  /** The counts each text searched adds to (search_counts.ts). */
  private counts = new SearchCountIds();
  /** The typed forms counted per query (typed_forms.ts). */
  private forms = new TypedForms();
  /** Quiet sessions' last queries, noted in KV, waiting SETTLE_MS to be counted. */
  private quiet: Pending[] = [];
  /** Notes of quiet sessions' last request times, for the next flush. */
  private notes: Pending[] = [];
  /** Names this instance's notes of typing runs (typing.ts). */
  private instance = crypto.randomUUID();
  /** Closed (shutdown): no more timers. */
  private closed = false;

  constructor(
    private kv: Deno.Kv,
    private clock: Clock,
    private flushMs = 5_000,
    private onError: (err: unknown) => void = () => {},
  ) {}

  /**
   * A search's first page of results for `q`, which found `found`. With a typing `session` it
   * is counted only if it turns out to be the session's last (or clicked); without one, at once.
   */
  search(siteId: string, q: string, found: number, { session, visitor }: Sender = {}) {
    if (!this.enabled) return;
    const now = this.clock();
    if (session) {
      const out = this.typing.ask({ siteId, session, q, found, at: now, visitor });
      if (out) this.finished(out);
      this.flushLater(); // its flushes find the session once it is quiet
      return;
    }
    const missed = this.typing.acted(siteId, q);
    this.finished({ siteId, q, found, at: now, missed, visitor });
  }

  /**
   * Counts one finished search on the day it was asked, and the query its session left without
   * finding pages for it, when it found some and is not the same typed on or deleted back.
   */
  private finished(
    { siteId, q, typed, found, at, missed, visitor }: Pick<
      Pending,
      "siteId" | "q" | "typed" | "found" | "at" | "missed" | "visitor"
    >,
  ) {
    const day = dayOf(at);
    const counts = this.counts.of(siteId, day, q);
    const { query } = counts;
    this.count(counts.totalId, 1);
    if (!query) return;
    this.count(counts.queryId, 1);
    const form = typed === undefined ? counts.form : typedForm(typed, query);
    if (form !== null && this.forms.admit(siteId, day, query, form)) {
      this.add(formKey(siteId, day, query, form), 1);
    }
    if (found === 0) {
      this.add(totalKey(siteId, day, "noResults"), 1);
      this.add(emptyQueryKey(siteId, day, query), 1);
      // A gap in the site is told by how many visitors met it, not how often one searched.
      if (this.evidence.first(siteId, visitor, `\u0002${query}`, day)) {
        this.add(emptyVisitorKey(siteId, day, query), 1);
      }
    } else if (
      missed && !refines(missed, query) &&
      this.evidence.first(siteId, visitor, `${missed}\u0000${query}`, day)
    ) {
      this.add(reformulationKey(siteId, day, missed, query), 1);
    }
  }

  /**
   * One AI answer delivered: answered from the site or not (it said the site does not answer),
   * pinned by the owner, and the sentences its support check removed.
   */
  answer(
    siteId: string,
    { answered = true, pinned = false, removed = 0 }: {
      answered?: boolean;
      pinned?: boolean;
      removed?: number;
    } = {},
  ) {
    if (!this.enabled) return;
    const day = dayOf(this.clock());
    this.add(totalKey(siteId, day, "answers"), 1);
    this.add(totalKey(siteId, day, answered ? "answered" : "abstained"), 1);
    if (pinned) this.add(totalKey(siteId, day, "pinned"), 1);
    if (removed > 0) this.add(totalKey(siteId, day, "sentencesRemoved"), removed);
  }

  /**
   * One click on the result at `position` (from 1) of `query` (finished), on the page `url`;
   * what it says of the page (pin suggestions) counts once per visitor a day.
   */
  click(siteId: string, position: number, query: string, url?: string, visitor?: string) {
    if (!this.enabled) return;
    for (const p of this.typing.clicked(siteId, query)) this.finished(p);
    const day = dayOf(this.clock());
    this.add(totalKey(siteId, day, "clicks"), 1);
    this.add(totalKey(siteId, day, "clickPositions" satisfies Metric), position);
    const q = query ? normalizeQuery(query) : "", page = url ? clickedPage(url) : null;
    if (q) this.add(queryClickKey(siteId, day, q), 1);
    if (!q || !page || !this.evidence.first(siteId, visitor, `\u0001${q}\u0000${page}`, day)) {
      return;
    }
    this.add(clickKey(siteId, day, q, page), 1);
    this.add(clickPositionKey(siteId, day, q, page), position);
  }

  private add(key: string[], n: number) {
    // Its parts, written out unambiguously: joined by a separator, a query or page holding it
    // would name another key ("x" and "/a\u0000/b" against "x\u0000/a" and "/b").
    this.count(JSON.stringify(key), n);
  }

  /** Adds `n` to the count kept under `id` (a key's parts as JSON, as `add` writes them). */
  private count(id: string, n: number) {
    this.pending.set(id, (this.pending.get(id) ?? 0) + n);
    this.flushLater();
  }

  /** A flush in `flushMs`: for counts gathered, and while typing sessions wait or settle. */
  private flushLater() {
    if (this.timer !== undefined || this.closed) return;
    const timer = this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(this.onError);
    }, this.flushMs);
    Deno.unrefTimer(timer); // a pending batch never keeps the process alive
  }

  /** Moves the sessions quiet at `now` (every one with Infinity) to be noted and settled. */
  private sweep(now: number) {
    const quiet = this.typing.quiet(now);
    this.notes.push(...quiet);
    this.quiet.push(...quiet);
  }

  /**
   * Writes every count gathered so far; resolves when they are in KV. Quiet sessions' notes go
   * out first, then those quiet for SETTLE_MS (all of them with `all`) are settled and counted.
   */
  flush(all = false): Promise<void> {
    this.sweep(this.clock());
    const now = this.clock();
    const notes = this.notes.splice(0);
    const due = all ? this.quiet.splice(0) : this.take((p) => now - p.at >= SETTLE_MS);
    const run = async () => {
      await noteRuns(this.kv, this.instance, notes);
      for (const p of due.length ? await settled(this.kv, this.instance, due) : []) {
        this.finished(p);
      }
      const batch = [...this.pending].map(([id, n]) => ({ key: JSON.parse(id) as string[], n }));
      this.pending.clear();
      await this.write(batch);
      if (this.typing.size || this.quiet.length) this.flushLater(); // still to settle
    };
    this.flushing = this.flushing.then(run, run);
    return this.flushing;
  }

  /** Removes and returns the quiet sessions `due` picks. */
  private take(due: (p: Pending) => boolean): Pending[] {
    const out = this.quiet.filter(due);
    if (out.length) this.quiet = this.quiet.filter((p) => !due(p));
    return out;
  }

  private async write(batch: { key: string[]; n: number }[]) {
    for (let i = 0; i < batch.length; i += PER_COMMIT) {
      const op = this.kv.atomic();
      for (const { key, n } of batch.slice(i, i + PER_COMMIT)) op.sum(key, BigInt(n));
      await op.commit();
    }
  }

  /** Stops the timers and writes what is pending, typing sessions' last queries too (shutdown). */
  async close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.sweep(Infinity);
    await this.flush(true);
  }

  /** Stops the timers and forgets what is pending (a test's KV is about to close). */
  discard() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.typing.quiet(Infinity);
    this.pending.clear();
    this.quiet = [];
    this.notes = [];
  }
}
