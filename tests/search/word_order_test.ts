/**
 * Completions of the word being typed through a vocabulary's order: the same words, in the
 * same order, as a plain scan of its slots, on any vocabulary; the order and the typo filter
 * kept in a snapshot and counted in the index's bytes.
 */
import assert from "node:assert/strict";
import { Vocab } from "../../lib/search/engine/store/vocab.ts";
import {
  completions,
  orderOf,
  prepareOrder,
  type SlotOrder,
} from "../../lib/search/engine/store/word_order.ts";
import {
  addDoc,
  createSiteDb,
  heldBytes,
  type SiteDb,
} from "../../lib/search/engine/store/site_db.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import { prepareIndex, rank } from "../../lib/search/engine/query/rank.ts";
import { DEMO_PAGES } from "../../lib/demo/pages.ts";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/mod.ts";
import { seeded } from "../fixtures/seeded.ts";

/** Few letters (so prefixes are shared by many words), some beyond Latin-1. */
const CHARS = ["a", "b", "c", "é", "ÿ", "ж", "茶"];

const randomWord = (rand: () => number, max = 6) =>
  Array.from({ length: 1 + Math.floor(rand() * max) }, () => CHARS[Math.floor(rand() * 7)]).join(
    "",
  );

/** Runs a pass's steps to the end. */
const run = (steps: Generator<void>) => {
  for (const _ of steps);
};

/** Whether the words `order` lists ascend strictly in code unit order (JS `<`), one a word held. */
function ascends(v: Vocab, order: SlotOrder): boolean {
  const words = Array.from(order, (i) => v.word(i));
  return words.length === v.size && words.every((w, j) => j === 0 || words[j - 1] < w);
}

Deno.test("completions - on random vocabularies full of ties, read through the order they are a plain scan's word for word, as words come and go", () => {
  const rand = seeded(7), vocab = new Vocab(4), ref = new Map<string, number>();
  for (let round = 0; round < 30; round++) {
    for (let step = 0; step < 120; step++) {
      // Counts of 1 to 3: most completions choose among ties.
      const word = rand() < 0.02 ? "a".repeat(260) + randomWord(rand) : randomWord(rand);
      if (rand() < 0.7) {
        vocab.set(word, 1 + Math.floor(rand() * 3)), ref.set(word, vocab.get(word)!);
      } else vocab.delete(word), ref.delete(word);
    }
    const prefixes = Array.from({ length: 25 }, () => randomWord(rand, 3));
    prefixes.push("a".repeat(258), "");
    // A change since the last pass: the slots are scanned.
    assert.equal(orderOf(vocab), null);
    const scanned = prefixes.map((p) => completions(vocab, p, 6));
    run(prepareOrder(vocab));
    const order = orderOf(vocab);
    assert.ok(order && ascends(vocab, order), "the order lists every word once, ascending");
    assert.deepEqual(prefixes.map((p) => completions(vocab, p, 6)), scanned);
    // What a visitor expects of each: the most used longer words beginning with the prefix.
    prefixes.forEach((p, q) => {
      const counts = [...ref].filter(([w]) => w.length > p.length && w.startsWith(p))
        .map(([, n]) => n).sort((a, b) => b - a).slice(0, 6);
      assert.deepEqual(scanned[q].map((w) => ref.get(w)), counts, p);
      assert.ok(scanned[q].every((w) => w.startsWith(p) && w.length > p.length), p);
    });
  }
});

Deno.test("completions - a word that comes while the pass orders the words leaves no order, and the next pass makes one", () => {
  const rand = seeded(3), vocab = new Vocab();
  for (let i = 0; i < 40_000; i++) vocab.set(randomWord(rand, 8), 1 + (i % 5));
  const steps = prepareOrder(vocab);
  steps.next();
  vocab.set("zzz-new", 99);
  run(steps);
  assert.equal(orderOf(vocab), null);
  assert.deepEqual(completions(vocab, "zz", 3), ["zzz-new"]);
  run(prepareOrder(vocab));
  assert.ok(ascends(vocab, orderOf(vocab)!));
  assert.deepEqual(completions(vocab, "zz", 3), ["zzz-new"]);
});

Deno.test("completions - a table of more than 65,536 slots keeps its order in four bytes a slot, a smaller one in two", () => {
  const rand = seeded(5), small = new Vocab(), large = new Vocab();
  for (let i = 0; i < 1_000; i++) small.set(`w${i}`, 1);
  for (let i = 0; i < 60_000; i++) large.set(`w${i}${randomWord(rand, 2)}`, 1 + (i % 7));
  run(prepareOrder(small));
  run(prepareOrder(large));
  assert.ok(large.capacity > 0x10000);
  assert.ok(orderOf(small) instanceof Uint16Array);
  assert.ok(orderOf(large) instanceof Uint32Array);
  assert.ok(ascends(large, orderOf(large)!));
  const decoded = decodeSiteDb(encodeSiteDb(Object.assign(createSiteDb(), { vocab: large })));
  assert.ok(orderOf(decoded.vocab) instanceof Uint32Array);
  for (const p of ["w1", "w12", "w4999", "w7é"]) {
    assert.deepEqual(
      completions(decoded.vocab, p, 8).map((w) => large.get(w)),
      completions(large, p, 8).map((w) => large.get(w)),
    );
  }
});

/** The demo pages indexed, with the pass after the change run to its end or not at all. */
function demo(pass: boolean): SiteDb {
  const db = createSiteDb();
  for (const p of DEMO_PAGES) {
    addDoc(db, {
      id: p.url,
      title: p.title,
      description: p.description,
      headings: "",
      body: p.body,
    });
  }
  if (pass) run(prepareIndex(db));
  return db;
}

/** Prefixes being typed, typos, a word no page uses. */
const QUERIES = ["ret", "sh", "shipp", "refnd", "retrun policy", "gift car", "kettel", "zzqx"];

Deno.test("snapshot codec - an index loaded from its snapshot completes and corrects typos as the built one did, its order and typo filter ready with no pass", () => {
  for (const pass of [false, true]) {
    const built = demo(pass), loaded = decodeSiteDb(encodeSiteDb(built));
    const order = orderOf(loaded.vocab);
    assert.ok(order && ascends(loaded.vocab, order), "the order comes with the snapshot");
    assert.ok(loaded.vocab.parts().filter, "so does the typo filter");
    for (const q of QUERIES) {
      assert.deepEqual(rank(loaded, q, { limit: 10 }), rank(built, q, { limit: 10 }), q);
    }
    // Both go on alike after a change.
    const page = { id: "/new", title: "Shipping kettles", description: "", headings: "", body: "" };
    addDoc(built, page);
    addDoc(loaded, page);
    for (const q of QUERIES) {
      assert.deepEqual(rank(loaded, q, { limit: 10 }), rank(built, q, { limit: 10 }), q);
    }
  }
});

Deno.test("held bytes - an index counts its vocabulary's order and typo filter once the pass makes them, and makes the order again after a new word", () => {
  const db = demo(false), before = heldBytes(db);
  assert.equal(orderOf(db.vocab), null);
  run(prepareIndex(db));
  const made = orderOf(db.vocab)!.byteLength + db.vocab.parts().filter!.byteLength;
  assert.ok(made > 0);
  assert.equal(heldBytes(db), before + made);
  // A new word: the order no longer holds (and is not counted) until the next pass.
  addDoc(db, { id: "/q", title: "Quokkas", description: "", headings: "", body: "" });
  assert.equal(orderOf(db.vocab), null);
  run(prepareIndex(db));
  assert.ok(ascends(db.vocab, orderOf(db.vocab)!));
});

Deno.test("held bytes - a site's index is counted with its order and typo filter once the pass after its build is done", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now), site = "site_words";
    for (const p of DEMO_PAGES) await pages.upsert(site, p, 1_000);
    const ix = new SearchIndexes(pages);
    await ix.refresh(site);
    await ix.idle();
    // The index itself, to count it as the budget should (no search yet: no scores kept).
    const { db } = await (ix as unknown as { load(s: string): Promise<{ db: SiteDb }> }).load(site);
    assert.ok(orderOf(db.vocab) && db.vocab.parts().filter);
    assert.equal(ix.held().bytes, heldBytes(db));
  } finally {
    kv.close();
  }
});
