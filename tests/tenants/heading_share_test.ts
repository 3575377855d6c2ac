/**
 * Sites share one numbering of heading words (query/heading_numbers.ts), which starts over
 * when full, and then every site reads its headings again. One tenant's pages of made-up
 * heading words must not do that to the others: past its share, its words are numbered apart.
 */
import assert from "node:assert/strict";
import { docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";
import { HeadingNumbers } from "../../lib/search/engine/query/heading_numbers.ts";
import { keptHeadingsBytes } from "../../lib/search/engine/query/heading_words.ts";
import { site } from "../search/sites.ts";
import { seeded } from "../fixtures/seeded.ts";

const urls = (db: SiteDb, q: string) => rank(db, q).ids.map((i) => docAt(db, i).id);

/** `n` distinct made-up words of 8 letters, from a seed. */
function madeUp(n: number, seed: number): string[] {
  const rand = seeded(seed);
  return Array.from({ length: n }, () => {
    let w = "";
    for (let i = 0; i < 8; i++) w += String.fromCharCode(97 + Math.floor(rand() * 26));
    return w;
  });
}

Deno.test("heading share - a site of 48,000 made-up heading words numbers them apart: the shared numbering never starts over, and another site keeps its lines", () => {
  const other = site(Array.from({ length: 20 }, (_, i) => ({
    id: `/guide/${i}`,
    title: `Guide ${i}`,
    body: `Brewing guide ${i}: grind, bloom and pour.`,
    sections: [`Grinding beans ${i}`, `Blooming coffee ${i}`],
  })));
  const before = urls(other, "grinding beans 7");
  assert.equal(before[0], "/guide/7");
  const held = keptHeadingsBytes(other);
  assert.ok(held > 0);
  const shared = HeadingNumbers.of("en"), generation = shared.generation;

  // 240 pages of 200 headings, each a word nobody else uses: more than the numbering holds.
  const pages = Array.from({ length: 240 }, (_, i) => {
    const words = madeUp(200, i + 1);
    return { id: `/spam/${i}`, title: `Spam ${i}`, body: words[0], sections: words };
  });
  const hostile = site(pages);
  for (const p of pages) {
    // Every page's own first heading names it; searching reads the pool's heading lines.
    assert.equal(urls(hostile, `${p.sections[0]} `)[0], p.id);
  }
  assert.equal(shared.generation, generation, "the shared numbering did not start over");
  assert.deepEqual(urls(other, "grinding beans 7"), before);
  assert.equal(keptHeadingsBytes(other), held, "the other site's lines are still held");
});
