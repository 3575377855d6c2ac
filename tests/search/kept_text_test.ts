/** Texts kept for results shown: however many pages are shown, each reads as itself. */
import assert from "node:assert/strict";
import {
  keptPrefix,
  packText,
  sourceOf,
  textAround,
} from "../../lib/search/engine/store/packed_text.ts";

/** A page's text of 8,000 characters or more, its own from its first word. */
const page = (i: number) =>
  `Page ${i} begins here.\n` + `Section ${i}: words of page ${i} and more words. `.repeat(200);

Deno.test("kept text - more pages shown than the process keeps each read as their own, in any order", () => {
  const texts = Array.from({ length: 700 }, (_, i) => page(i));
  const packed = texts.map(packText);
  // Shown once each (more than are kept), then again backwards, then one page over and over.
  for (let i = 0; i < texts.length; i++) {
    assert.equal(keptPrefix(sourceOf(packed[i]), 8_000).upTo(8_000), texts[i].slice(0, 8_000));
  }
  for (let i = texts.length - 1; i >= 0; i--) {
    assert.equal(
      keptPrefix(sourceOf(packed[i]), 8_000).upTo(8_000),
      texts[i].slice(0, 8_000),
      `page ${i}`,
    );
  }
  for (let k = 0; k < 3; k++) {
    assert.equal(keptPrefix(sourceOf(packed[5]), 100).upTo(100), texts[5].slice(0, 100));
  }
});

Deno.test("kept text - a stretch of a long page read again for a result reads the same, beside its prefix", () => {
  const text = page(9).repeat(6); // about 60,000 characters: several blocks
  const packed = packText(text);
  for (let k = 0; k < 3; k++) {
    const { text: part, at } = textAround(packed, 30_000, 32_000, true);
    assert.ok(at <= 30_000 && at + part.length >= 32_000);
    assert.equal(part, text.slice(at, at + part.length));
    assert.equal(keptPrefix(sourceOf(packed), 8_000).upTo(8_000), text.slice(0, 8_000));
  }
});

Deno.test("kept text - accented, non-Latin and astral text reads the same the first, second and third time", () => {
  const text = "Déjà vu — 日本語のページ 🦀 Ελληνικά. ".repeat(400); // several blocks, four-byte characters too
  const packed = packText(text);
  for (let k = 0; k < 3; k++) {
    assert.equal(
      keptPrefix(sourceOf(packed), 5_000).upTo(5_000),
      text.slice(0, 5_000),
      `read ${k + 1}`,
    );
    const { text: part, at } = textAround(packed, 9_000, 9_500, true);
    assert.equal(part, text.slice(at, at + part.length), `stretch, read ${k + 1}`);
  }
});

Deno.test("kept text - a page shown again and again reads as itself at every read, kept as bytes and then as text", () => {
  const text = "Página — 日本語 🦀 words of a page shown often. ".repeat(300);
  const packed = packText(text);
  for (let k = 0; k < 8; k++) {
    assert.equal(
      keptPrefix(sourceOf(packed), 6_000).upTo(6_000),
      text.slice(0, 6_000),
      `read ${k + 1}`,
    );
    assert.equal(
      keptPrefix(sourceOf(packed), 300).upTo(300),
      text.slice(0, 300),
      `short read ${k + 1}`,
    );
  }
});

Deno.test("kept text - a page shown for the first time is decoded once for its description and snippet", () => {
  const text = "Words of a page seen for the first time, long enough to be deflated. ".repeat(300);
  const packed = packText(text);
  const decode = TextDecoder.prototype.decode;
  let decodes = 0;
  TextDecoder.prototype.decode = function (...args) {
    decodes++;
    return decode.apply(this, args);
  };
  try {
    const prefix = keptPrefix(sourceOf(packed), 8_000);
    // A description's start, then the first chunk a snippet is looked for in (results.ts):
    // at least as many characters as asked, each the page's own.
    for (const n of [300, 2_000]) {
      const got = prefix.upTo(n);
      assert.ok(got.length >= n, `${got.length} characters for ${n}`);
      assert.equal(got, text.slice(0, got.length));
    }
    assert.equal(decodes, 1, "one decode of what was inflated");
  } finally {
    TextDecoder.prototype.decode = decode;
  }
});
