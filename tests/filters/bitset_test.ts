/** The bitsets filters are kept in, and the filter postings over them. */
import assert from "node:assert/strict";
import { Bitset } from "../../lib/search/store/bitset.ts";
import { FilterPostings } from "../../lib/search/store/filter_postings.ts";

Deno.test("bitset - holds exactly the ids added, grows past its end, and lists them in order", () => {
  const s = new Bitset();
  const ids = [0, 31, 32, 63, 64, 1000, 99_999];
  for (const id of [...ids].reverse()) s.add(id);
  s.add(31);
  assert.equal(s.size, ids.length);
  assert.deepEqual([...s.ids()], ids);
  for (const id of ids) assert.ok(s.has(id));
  for (const id of [1, 30, 33, 65, 999, 1001, 99_998, 100_000, 5_000_000]) assert.ok(!s.has(id));
  s.delete(1000);
  s.delete(7_000_000); // past the end: nothing to do
  assert.deepEqual([...s.ids()], [0, 31, 32, 63, 64, 99_999]);
});

Deno.test("bitset - counts what two sets share, and a union holds both", () => {
  const evens = new Bitset(), threes = new Bitset();
  for (let i = 0; i < 3000; i += 2) evens.add(i);
  for (let i = 0; i < 200; i += 3) threes.add(i);
  // Multiples of 6 below 200: 0, 6, …, 198.
  assert.equal(evens.sharedWith(threes), 34);
  assert.equal(threes.sharedWith(evens), 34);
  const both = new Bitset();
  both.addAll(threes);
  both.addAll(evens);
  assert.equal(both.size, 1500 + 67 - 34);
});

Deno.test("bitset - renumbering keeps the order and drops the gone", () => {
  const s = new Bitset();
  for (const id of [1, 2, 5, 40]) s.add(id);
  const remap = Int32Array.from({ length: 41 }, (_, i) => i === 2 ? -1 : i === 40 ? 3 : i);
  assert.deepEqual([...s.remapped(remap).ids()], [1, 3, 5]);
});

Deno.test("filter postings - values are OR-ed within a name, names AND-ed, and facets leave out a name's own filter", () => {
  const f = new FilterPostings();
  f.add(0, { colour: ["red"], size: ["S"] });
  f.add(1, { colour: ["red", "blue"], size: ["M"] });
  f.add(2, { colour: ["blue"], size: ["S"] });
  f.add(3, { size: ["L"] });
  const chosen = f.chosen(new Map([["colour", ["red", "blue"]], ["size", ["S"]]]));
  const pass = (id: number) => [...chosen.values()].every((s) => s.has(id));
  assert.deepEqual([0, 1, 2, 3].filter(pass), [0, 2]);
  const facets = f.facets([0, 1, 2, 3], chosen);
  // size ignores size=S: documents 0, 1, 2 pass colour.
  assert.deepEqual(facets.size, [{ value: "S", count: 2 }, { value: "M", count: 1 }]);
  // colour ignores colour: documents 0, 2 pass size.
  assert.deepEqual(facets.colour, [{ value: "blue", count: 1 }, { value: "red", count: 1 }]);
  const unknown = f.chosen(new Map([["shape", ["round"]]]));
  assert.equal([0, 1, 2, 3].filter((id) => unknown.get("shape")!.has(id)).length, 0);
});

Deno.test("filter postings - removing the last document of a value drops it, and a snapshot's bytes give the same sets", () => {
  const f = new FilterPostings();
  for (let id = 0; id < 70; id++) f.add(id, { n: [`v${id % 3}`], odd: id % 2 ? ["yes"] : [] });
  f.add(70, { only: ["one"] });
  f.remove(70);
  assert.equal(f.names.has("only"), false);
  const { names, words } = f.encode(71);
  assert.equal(words.length, 4 * 3, "four values, three words each");
  const back = FilterPostings.decode(JSON.parse(JSON.stringify(names)), words, 71)!;
  const all = Array.from({ length: 71 }, (_, i) => i);
  assert.deepEqual(back.facets(all, new Map()), f.facets(all, new Map()));
  // Bytes that do not hold together are refused.
  assert.equal(FilterPostings.decode(names, words.subarray(1), 71), null);
  assert.equal(FilterPostings.decode([["n", [3]]], words, 71), null);
  const stray = words.slice();
  stray[2] |= 1 << 31; // document 95 of 71
  assert.equal(FilterPostings.decode(names, stray, 71), null);
});
