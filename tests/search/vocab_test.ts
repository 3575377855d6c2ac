import assert from "node:assert/strict";
import { FREE, GONE, LONG, Vocab } from "../../lib/search/engine/store/vocab.ts";
import { completions, prepareOrder } from "../../lib/search/engine/store/word_order.ts";
import { createSiteDb } from "../../lib/search/engine/store/site_db.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import { seeded } from "../fixtures/seeded.ts";

/** Characters in and beyond Latin-1: ASCII, accented, Cyrillic, CJK, an astral pair, fullwidth. */
const CHARS = ["a", "b", "é", "ÿ", "ж", "茶", "\u{1D518}", "\uFF46"];

/** A random word of 1–6 characters from `chars`. */
const randomWord = (rand: () => number, chars: string[]) =>
  Array.from({ length: 1 + Math.floor(rand() * 6) }, () => chars[Math.floor(rand() * chars.length)])
    .join("");

/** Sets and deletes random words in both, checking every probe along the way. */
function churn(
  vocab: Vocab,
  ref: Map<string, number>,
  rand: () => number,
  steps: number,
  next = () => randomWord(rand, CHARS),
) {
  for (let step = 0; step < steps; step++) {
    const word = next();
    if (rand() < 0.6) {
      const n = 1 + Math.floor(rand() * 9);
      vocab.set(word, n);
      ref.set(word, n);
    } else {
      vocab.delete(word);
      ref.delete(word);
    }
    const probe = next();
    assert.equal(vocab.get(probe), ref.get(probe), probe);
    assert.equal(vocab.has(probe), ref.has(probe), probe);
  }
  assert.equal(vocab.size, ref.size);
  assert.deepEqual(new Map(vocab.entries()), ref);
}

Deno.test("vocab - random sets and deletes read back as a Map does, through growth and reused slots", () => {
  const vocab = new Vocab(8);
  const ref = new Map<string, number>();
  const rand = seeded(1);
  churn(vocab, ref, rand, 20_000, () => `w${Math.floor(rand() * 3000).toString(36)}`);
  assert.ok(vocab.capacity >= ref.size * 10 / 7 && vocab.capacity <= 8192, `${vocab.capacity}`);
});

Deno.test("vocab - words beyond Latin-1 read back as a Map does; a Latin-1 word takes a byte a character, another two", () => {
  const rand = seeded(7);
  const vocab = new Vocab(8);
  const ref = new Map<string, number>();
  churn(vocab, ref, rand, 3000);
  for (const [word, n] of ref) assert.equal(vocab.get(word), n, word);
  // A lone surrogate is a word like any other (units, not code points).
  vocab.set("\uD835", 3);
  assert.equal(vocab.get("\uD835"), 3);
  assert.equal(vocab.has("\u{1D518}"), ref.has("\u{1D518}"));

  const small = new Vocab(16);
  const bytes = () => small.parts().used;
  small.set("café", 1);
  assert.equal(bytes(), 4, "Latin-1: a byte a character");
  small.set("чай", 1);
  assert.equal(bytes(), 4 + 6, "Cyrillic: two bytes a character");
  small.set("\u{1D518}n", 1);
  assert.equal(bytes(), 10 + 6, "an astral character is two units");
  small.set("naïve", 1);
  assert.equal(bytes(), 16 + 5, "the wide words before change nothing for the next Latin-1 one");
  assert.deepEqual(
    new Map(small.entries()),
    new Map([["café", 1], ["чай", 1], ["\u{1D518}n", 1], ["naïve", 1]]),
  );
});

Deno.test("vocab - deleted words' characters are reclaimed: a word deleted and set again forever keeps the arena bounded", () => {
  const vocab = new Vocab(64);
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
  for (const w of words) vocab.set(w, 1);
  const live = words.reduce((n, w) => n + w.length, 0);
  for (let round = 0; round < 2000; round++) {
    const w = words[round % words.length];
    vocab.delete(w);
    assert.equal(vocab.has(w), false);
    vocab.set(w, round + 1);
  }
  const { arena, used } = vocab.parts();
  assert.ok(arena.length <= live * 4 && used <= arena.length, `${arena.length} for ${live} live`);
  assert.equal(vocab.size, words.length);
  words.forEach((w, i) => assert.equal(vocab.get(w), 2000 - words.length + i + 1, w));
});

Deno.test("vocab - a resize compacts the arena to the live words' characters", () => {
  const vocab = new Vocab(16);
  for (let i = 0; i < 8; i++) vocab.set(`gone${i}`, 1);
  for (let i = 0; i < 8; i++) vocab.delete(`gone${i}`);
  const before = vocab.capacity;
  for (let i = 0; vocab.capacity === before; i++) vocab.set(`k${i}`, i + 1);
  const { used } = vocab.parts();
  const live = [...vocab.entries()].reduce((n, [w]) => n + w.length, 0);
  assert.equal(used, live, "no deleted word's characters after a resize");
  assert.equal(vocab.has("gone0"), false);
  for (const [w, n] of vocab.entries()) assert.equal(vocab.get(w), n);
});

Deno.test("vocab - a snapshot round trip keeps every word and count in a packed table, and the copy goes on alike", () => {
  const rand = seeded(11);
  const db = createSiteDb();
  const ref = new Map<string, number>();
  churn(db.vocab, ref, rand, 4000);
  const copy = decodeSiteDb(encodeSiteDb(db));
  assert.deepEqual(new Map(copy.vocab.entries()), new Map(db.vocab.entries()), "same words");
  assert.equal(copy.vocab.capacity, Math.ceil(ref.size / 0.8), "0.8 full");
  assert.ok(copy.vocab.capacity < db.vocab.capacity);
  assert.equal(copy.vocab.size, ref.size);
  // Both go on with the same operations: a reused tombstone, growth, compaction.
  const again = new Map(ref);
  churn(db.vocab, ref, seeded(12), 3000);
  churn(copy.vocab, again, seeded(12), 3000);
  assert.deepEqual(new Map(copy.vocab.entries()), new Map(db.vocab.entries()));
});

Deno.test("vocab - words too long for a one-byte length (252 characters and up) read back, move on resize and round-trip", () => {
  const rand = seeded(5);
  const db = createSiteDb();
  const ref = new Map<string, number>();
  const long = (n: number, c: string) => c.repeat(n);
  // Lengths about the one-byte limit, one far past it, and a wide one.
  const words = [251, 252, 253, 254, 255, 300].map((n) => long(n, "x"));
  words.push(long(70_000, "y"), long(260, "ж"));
  for (let round = 0; round < 3; round++) {
    for (const w of words) {
      const n = 1 + Math.floor(rand() * 9);
      db.vocab.set(w, n);
      ref.set(w, n);
    }
    churn(db.vocab, ref, rand, 1500); // short words between: resizes move the long ones
    for (const w of words.filter((_, i) => (i + round) % 3 === 0)) {
      db.vocab.delete(w);
      ref.delete(w);
    }
  }
  for (const w of words) assert.equal(db.vocab.get(w), ref.get(w), `${w.length}`);
  assert.equal(db.vocab.has(long(256, "x")), false);
  const copy = decodeSiteDb(encodeSiteDb(db));
  assert.deepEqual(new Map(copy.vocab.entries()), new Map(db.vocab.entries()));
  for (const w of words) assert.equal(copy.vocab.get(w), ref.get(w), `${w.length}`);
  copy.vocab.set(words[6], 99);
  assert.equal(copy.vocab.get(words[6]), 99);
});

Deno.test("vocab - parts that do not fit together (a word past the arena, arrays out of step) are refused", () => {
  const vocab = new Vocab(16);
  for (let i = 0; i < 8; i++) vocab.set(`w${i}`, i + 1);
  const parts = vocab.parts();
  const copy = new Vocab(16, { ...parts, lens: parts.lens.slice(), starts: parts.starts.slice() });
  assert.deepEqual([...copy.entries()], [...vocab.entries()]);
  const slot = parts.lens.findIndex((l) => l !== FREE && l !== GONE);
  const far = parts.starts.slice();
  far[slot] = parts.used;
  assert.throws(() => new Vocab(16, { ...parts, starts: far }), /past the arena/);
  assert.throws(() => new Vocab(16, { ...parts, used: parts.arena.length + 1 }), /arena/);
  assert.throws(() => new Vocab(16, { ...parts, counts: new Uint32Array(8) }), /out of step/);
  const lens = parts.lens.slice();
  lens[slot] = LONG;
  assert.throws(() => new Vocab(16, { ...parts, lens }), /long word/, "LONG without a length");
  const extra = new Map([[slot, 300]]);
  assert.throws(() => new Vocab(16, { ...parts, long: extra }), /long word/, "a length not LONG");
});

Deno.test("vocab - a packed copy is 0.8 full, answers every lookup alike, and packs to itself", () => {
  const rand = seeded(21);
  const vocab = new Vocab(8);
  const ref = new Map<string, number>();
  churn(vocab, ref, rand, 5000);
  const packed = vocab.packed();
  assert.equal(packed.capacity, Math.ceil(ref.size / 0.8));
  // A Latin-1 word takes a byte a character, another two: the live words' bytes, no more.
  const bytes = (w: string) => w.length * ([...w].some((c) => c.charCodeAt(0) > 0xff) ? 2 : 1);
  assert.equal(packed.parts().used, [...ref.keys()].reduce((n, w) => n + bytes(w), 0));
  for (let i = 0; i < 2000; i++) {
    const w = randomWord(rand, CHARS);
    assert.equal(packed.get(w), ref.get(w), w);
  }
  assert.equal(packed.packed(), packed);
  churn(packed, ref, rand, 2000); // and it grows as any table does
});

Deno.test("vocab - completions are the most used longer words beginning with a prefix, as sets, deletes and growth go on", () => {
  const rand = seeded(11), vocab = new Vocab(4), ref = new Map<string, number>();
  /** What a visitor would expect: every longer word with the prefix, most used first. */
  const expected = (prefix: string, max: number) =>
    [...ref].filter(([w]) => w.length > prefix.length && w.startsWith(prefix))
      .sort((a, b) => b[1] - a[1]).slice(0, max);
  for (let round = 0; round < 40; round++) {
    churn(vocab, ref, rand, 50);
    // Read through the words' order half the time (as the pass after a change leaves it).
    if (round % 2) { for (const _ of prepareOrder(vocab)); }
    for (let q = 0; q < 20; q++) {
      const prefix = randomWord(rand, CHARS).slice(0, 1 + Math.floor(rand() * 2));
      const got = completions(vocab, prefix, 5);
      const want = expected(prefix, 5);
      assert.equal(got.length, want.length, prefix);
      // Ties may come in any order: each word is one of the prefix's, with the count due there.
      got.forEach((w, i) => {
        assert.ok(w.startsWith(prefix) && w.length > prefix.length, w);
        assert.equal(ref.get(w), want[i][1], w);
      });
    }
  }
  assert.deepEqual(completions(vocab, "zzz", 5), []);
});
