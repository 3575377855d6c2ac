/**
 * Packed page text: any text reads back whole, and any prefix of it as `slice` gives it,
 * across block boundaries and characters of several bytes; damaged layouts are told apart.
 */
import assert from "node:assert/strict";
import {
  keptPrefix,
  packText,
  soundText,
  sourceOf,
  textAround,
  unpackText,
  utf8Bytes,
} from "../../lib/search/engine/store/packed_text.ts";
import { seeded } from "../fixtures/seeded.ts";

/** ASCII, Latin-1, Cyrillic, CJK and an astral pair: one to four bytes a character. */
const CHARS = ["a", "b", " ", "\n", "é", "ж", "茶", "\u{1D518}"];

function randomText(rand: () => number, length: number): string {
  let s = "";
  while (s.length < length) s += CHARS[Math.floor(rand() * CHARS.length)];
  return s;
}

Deno.test("packed text - reads back whole, and every prefix as slice gives it, across blocks", () => {
  const rand = seeded(3);
  for (const length of [0, 1, 100, 511, 600, 8_191, 8_192, 9_000, 30_000]) {
    const text = randomText(rand, length);
    const packed = packText(text);
    assert.equal(soundText(packed), true);
    assert.equal(utf8Bytes(packed), new TextEncoder().encode(text).length);
    assert.equal(unpackText(packed), text, `${length} characters`);
    for (const k of [0, 1, 7, 2_000, 4_000, 8_000, 8_191, 12_000, 20_000, 50_000]) {
      assert.equal(unpackText(packed, k), text.slice(0, k), `${length} characters, first ${k}`);
    }
  }
});

Deno.test("packed text - a stretch around any characters is whole blocks of the text, found without the rest", () => {
  const rand = seeded(5);
  for (const length of [300, 9_000, 40_000]) {
    const text = randomText(rand, length);
    const packed = packText(text);
    for (const [from, to] of [[0, 10], [5_000, 5_100], [8_100, 20_000], [39_000, 41_000]]) {
      const { text: stretch, at } = textAround(packed, from, to);
      assert.equal(stretch, text.slice(at, at + stretch.length), `${length}: ${from}-${to}`);
      assert.ok(at <= Math.min(from, text.length), `starts at or before ${from}`);
      assert.ok(at + stretch.length >= Math.min(to, text.length), `ends at or after ${to}`);
      if (length > 30_000) assert.ok(stretch.length < 30_000, "not the whole text");
    }
  }
});

Deno.test("packed text - documentation-like text keeps under half its size; short text as it is", () => {
  const prose = "Use a fine-medium grind, a little coarser than espresso and finer than filter. "
    .repeat(200);
  const packed = packText(prose);
  assert.ok(packed.length < prose.length / 2, `${packed.length} of ${prose.length}`);
  assert.equal(packText("short").length, 1 + 5);
});

Deno.test("packed text - a damaged layout is not sound", () => {
  const packed = packText("zeppelin ".repeat(3_000));
  assert.equal(soundText(packed), true);
  assert.equal(soundText(packed.subarray(0, packed.length - 1)), false, "truncated");
  assert.equal(soundText(new Uint8Array([9, 1, 2])), false, "unknown kind");
  assert.equal(soundText(new Uint8Array(0)), false, "empty");
  const bad = packed.slice();
  bad[8] = 7; // block count
  assert.equal(soundText(bad), false);
});

Deno.test("packed text - a damaged block fails to read, and text read after it reads whole", () => {
  const rand = seeded(9);
  const text = randomText(rand, 20_000), packed = packText(text);
  const bad = packed.slice();
  for (let i = 40; i < 80; i++) bad[i] ^= 0x5a;
  assert.throws(() => unpackText(bad));
  assert.equal(unpackText(packed), text);
  assert.equal(textAround(packed, 9_000, 9_100).text.length > 0, true);
});

Deno.test("packed text - a kept read gives the same prefix as a fresh one, for each length asked", () => {
  const rand = seeded(11);
  const text = randomText(rand, 30_000), packed = packText(text);
  for (const k of [8_000, 8_000, 100, 8_000, 30_000]) {
    assert.equal(keptPrefix(sourceOf(packed), k).upTo(k), text.slice(0, k), `first ${k}`);
  }
  // Two texts in one buffer, as a snapshot holds them: each reads as itself.
  const other = randomText(rand, 12_000), second = packText(other);
  const joined = new Uint8Array(packed.length + second.length);
  joined.set(packed);
  joined.set(second, packed.length);
  const a = joined.subarray(0, packed.length), b = joined.subarray(packed.length);
  for (let i = 0; i < 2; i++) {
    assert.equal(keptPrefix(sourceOf(a), 8_000).upTo(8_000), text.slice(0, 8_000));
    assert.equal(keptPrefix(sourceOf(b), 8_000).upTo(8_000), other.slice(0, 8_000));
  }
});

Deno.test("packed text - a text kept out of memory is read once while it is kept, its bytes used at once", () => {
  const rand = seeded(12);
  const texts = [randomText(rand, 30_000), randomText(rand, 3_000), "short and raw"];
  const packed = texts.map(packText);
  // As an arena kept in a file reads: every read into one reused buffer, the last one's.
  const owner = {};
  let reused = new Uint8Array(0), reads = 0;
  const sources = packed.map((p, i) => ({
    owner,
    at: i * 100_000,
    length: p.length,
    read() {
      reads++;
      if (reused.length < p.length) reused = new Uint8Array(p.length);
      reused.fill(0xff);
      reused.set(p);
      return reused.subarray(0, p.length);
    },
  }));
  for (let round = 0; round < 3; round++) {
    sources.forEach((src, i) => {
      const prefix = keptPrefix(src, 8_000);
      // Another text read between: the first one's bytes are gone from the buffer.
      keptPrefix(sources[(i + 1) % sources.length], 8_000).upTo(50);
      assert.equal(prefix.length, Math.min(8_000, texts[i].length));
      assert.equal(prefix.upTo(8_000), texts[i].slice(0, 8_000), `text ${i}, round ${round}`);
    });
    if (round === 0) reads = 0;
  }
  assert.equal(reads, 0, "kept texts are not read again");
});
