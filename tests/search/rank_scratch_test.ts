/**
 * Ranking's arrays are reused from search to search and site to site (query/accumulate.ts,
 * bm25.ts): a visitor's results must not depend on what was searched before, on which site,
 * or on a search that failed halfway.
 */
import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { topK } from "../../lib/search/engine/query/top_k.ts";
import type { Expand } from "../../lib/search/engine/query/expand.ts";
import {
  addDoc,
  createSiteDb,
  type Doc,
  docAt,
  removeDoc,
  seal,
  type SiteDb,
} from "../../lib/search/engine/store/site_db.ts";
import { countTerms } from "../../lib/search/engine/analysis/tokens.ts";
import { FIELDS } from "../../lib/search/engine/store/postings.ts";
import { seeded } from "../fixtures/seeded.ts";

const WORDS = [
  "queue",
  "worker",
  "retry",
  "broker",
  "backend",
  "routing",
  "schedule",
  "periodic",
  "result",
  "serializer",
  "timeout",
  "signal",
  "monitor",
  "prefetch",
  "acknowledge",
  "concurrency",
];

/** A site of `n` pages of random words from WORDS (`seed` makes it another site). */
function site(n: number, seed: number): SiteDb {
  const rand = seeded(seed), db = createSiteDb();
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  for (let i = 0; i < n; i++) {
    const heading = `${pick()} ${pick()}`;
    const doc: Doc = {
      id: `/p/${i}`,
      title: `${pick()} ${pick()}`,
      description: "",
      headings: heading,
      body: `${heading}\n${Array.from({ length: 30 + (i % 50) }, pick).join(" ")}`,
      sections: [{ heading, anchor: "" }],
    };
    addDoc(db, doc);
  }
  return db;
}

/** Queries of every kind: words, pairs, a word being typed, a typo, a word no page has. */
const QUERIES = [
  "queue",
  "worker retry ",
  "brok",
  "schedlue periodic",
  "timeuot",
  "zebra",
  "prefetch acknowledge concurrency",
  "result serializer ",
  "monitor sig",
];

const ranked = (db: SiteDb, q: string) => {
  const r = rank(db, q, { limit: 10 });
  return JSON.stringify({ ...r, matched: [...r.matched].sort() });
};

Deno.test("rank scratch - results are the same whatever was searched before, on this site or a larger one", () => {
  const small = site(40, 1), large = site(3000, 2);
  // Each site alone, first search of its kind.
  const alone = QUERIES.map((q) => ranked(site(40, 1), q));
  const aloneLarge = QUERIES.map((q) => ranked(site(3000, 2), q));
  // Interleaved: the large site's ids reach far past the small one's.
  for (let round = 0; round < 3; round++) {
    QUERIES.forEach((q, i) => {
      assert.equal(ranked(large, q), aloneLarge[i], `large: ${q}`);
      assert.equal(ranked(small, q), alone[i], `small: ${q}`);
    });
  }
  assert.ok(JSON.parse(alone[0]).found > 0 && JSON.parse(aloneLarge[0]).found > 100);
});

Deno.test("rank scratch - a search that fails halfway leaves nothing behind for the next", () => {
  const db = site(200, 3);
  const before = QUERIES.map((q) => ranked(db, q));
  // Synonyms of the last word that fail once the words before it are added.
  const failing: Expand = (words) => [{
    from: words.length - 1,
    to: words.length,
    get phrases(): string[][] {
      throw new Error("synonyms unavailable");
    },
  }];
  for (const q of QUERIES) {
    assert.throws(() => rank(db, q, { limit: 10, expand: failing }), /synonyms/);
  }
  QUERIES.forEach((q, i) => assert.equal(ranked(db, q), before[i], q));
  const prior = db.prior;
  // A prior that fails while pages are weighed, after every word was added.
  db.prior = new (class extends Map<number, number> {
    override [Symbol.iterator](): MapIterator<[number, number]> {
      throw new Error("prior unreadable");
    }
    override forEach(): void {
      throw new Error("prior unreadable");
    }
  })();
  for (const q of QUERIES) assert.throws(() => rank(db, q, { limit: 10 }), /prior/);
  db.prior = prior;
  QUERIES.forEach((q, i) => assert.equal(ranked(db, q), before[i], q));
});

Deno.test("rank scratch - the best of the first n of a typed array, as a stable sort of them, the array left as it was", () => {
  const rand = seeded(9);
  for (let round = 0; round < 200; round++) {
    const size = 1 + Math.floor(rand() * 300), n = Math.floor(rand() * (size + 1));
    const score = new Float64Array(size), words = new Uint16Array(size);
    for (let i = 0; i < size; i++) {
      score[i] = Math.floor(rand() * 4);
      words[i] = 1 + Math.floor(rand() * 2);
    }
    const ids = Uint32Array.from({ length: size }, (_, i) => i).sort(() => rand() - 0.5);
    const copy = ids.slice();
    const full = [...ids.subarray(0, n)].sort((a, b) => words[b] - words[a] || score[b] - score[a]);
    for (const k of [1, 5, 10, Math.ceil(n / 3), n]) {
      const kk = Math.min(k, n);
      assert.deepEqual(topK(ids, kk, { score, words }, n), full.slice(0, kk), `n ${n}, k ${kk}`);
    }
    assert.deepEqual(ids, copy);
  }
});

Deno.test("rank scratch - a term's frequencies in many pages at once are those read page by page, sealed, added since and removed", () => {
  const db = site(300, 4);
  seal(db);
  // Pages added since the seal (the recent part), some replaced or removed (dead until the next).
  const more = site(30, 5);
  for (let i = 0; i < 30; i++) addDoc(db, { ...docAt(more, i), id: `/more/${i}` });
  for (let i = 0; i < 20; i++) removeDoc(db, `/p/${i * 7}`);
  addDoc(db, { ...docAt(more, 0), id: "/p/3" });
  const ids = Array.from({ length: db.index.slots }, (_, i) => i).reverse();
  const out = new Uint16Array(ids.length);
  for (const field of FIELDS) {
    for (
      const term of [...WORDS.map((w) => countTerms(w, "en").counts.keys().next().value!), "zebra"]
    ) {
      db.index.tfsOf(field, term, ids, out);
      ids.forEach((id, j) =>
        assert.equal(out[j], db.index.get(field, id, term), `${field} ${term} ${id}`)
      );
    }
  }
  assert.ok(db.index.deadCount > 0 && db.index.fields.body.recentSize > 0);
});
