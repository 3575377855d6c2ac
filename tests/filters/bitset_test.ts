/** The bitsets and id lists filters are kept in, and the filter postings over them. */
import assert from "node:assert/strict";
import { Bitset } from "../../lib/search/engine/store/bitset.ts";
import { DocSet } from "../../lib/search/engine/store/doc_set.ts";
import { FilterPostings } from "../../lib/search/engine/store/filter_postings.ts";
import { seeded } from "../fixtures/seeded.ts";

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

Deno.test("bitset - a union holds the ids of both sets", () => {
  const evens = new Bitset(), threes = new Bitset();
  for (let i = 0; i < 3000; i += 2) evens.add(i);
  for (let i = 0; i < 200; i += 3) threes.add(i);
  const both = new Bitset();
  both.addAll(threes);
  both.addAll(evens);
  // Multiples of 6 below 200 are in both: 34 of them.
  assert.equal(both.size, 1500 + 67 - 34);
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

Deno.test("doc set - a rare set is a list, a common one a bitset, and it turns only well past the edge", () => {
  const s = new DocSet();
  s.add(5000);
  assert.equal(s.dense, false, "one id of 5,001: a list");
  // A bitset of ids up to 5,000 takes 157 words and its object (1,140 bytes): a list of 143
  // ids (8 bytes each) is larger.
  for (let id = 0; id < 141; id++) s.add(id);
  assert.equal(s.dense, false, "142 ids");
  s.add(141);
  assert.equal(s.dense, true, "143 ids");
  assert.equal(s.size, 143);
  // Removing and adding at the edge keeps it as it is.
  for (let k = 0; k < 10; k++) {
    s.delete(141);
    assert.equal(s.dense, true);
    s.add(141);
  }
  // Far below the edge (under a quarter) it is a list again, with the same ids.
  for (let id = 0; id < 107; id++) s.delete(id);
  assert.equal(s.dense, true, "36 ids");
  s.delete(107);
  assert.equal(s.dense, false, "35 ids");
  assert.deepEqual([...s.ids()], [...Array.from({ length: 34 }, (_, i) => 108 + i), 5000]);
  assert.ok(s.has(5000) && !s.has(107) && !s.add(108) && !s.delete(107));
  assert.equal(s.size, 35);
});

Deno.test("doc set - a bitset that an id far past the others would stretch becomes a list", () => {
  const s = new DocSet(Array.from({ length: 100 }, (_, i) => i));
  assert.equal(s.dense, true);
  s.add(1_000_000);
  assert.equal(s.dense, false, "101 ids, not 31,251 words");
  assert.equal(s.size, 101);
  assert.ok(s.has(99) && s.has(1_000_000) && !s.has(100));
});

Deno.test("doc set - out-of-order adds, unions and renumbering work in both forms", () => {
  for (const ids of [[900, 3, 77, 4], Array.from({ length: 200 }, (_, i) => 199 - i)]) {
    const s = new DocSet();
    for (const id of ids) assert.ok(s.add(id));
    assert.equal(s.dense, ids.length === 200);
    const sorted = [...ids].sort((a, b) => a - b);
    assert.deepEqual([...s.ids()], sorted);
    const union = new Bitset();
    union.add(1000);
    s.addTo(union);
    assert.deepEqual([...union.ids()], [...sorted, 1000]);
    // Every other id gone, the rest moved down by half.
    const remap = Int32Array.from({ length: 1001 }, (_, i) => i % 2 ? -1 : i / 2);
    const moved = s.remapped(remap);
    assert.deepEqual([...moved.ids()], sorted.filter((i) => i % 2 === 0).map((i) => i / 2));
    assert.equal(moved.size, sorted.filter((i) => i % 2 === 0).length);
  }
});

Deno.test("doc set - the encoded form is the shorter one, and bad bytes are refused", () => {
  const rare = new DocSet([2, 40, 69]);
  const common = new DocSet(Array.from({ length: 200 }, (_, i) => i));
  assert.equal(common.dense, true);
  assert.equal(rare.encodedLength(200), 4, "its length and three ids");
  assert.equal(common.encodedLength(200), 8, "a mark and seven words");
  const words = new Uint32Array(12);
  assert.equal(common.encodeInto(words, rare.encodeInto(words, 0, 200), 200), 12);
  const a = DocSet.decode(words, 0, 200)!, b = DocSet.decode(words, a.end, 200)!;
  assert.deepEqual([...a.set.ids()], [2, 40, 69]);
  assert.deepEqual([...b.set.ids()], [...common.ids()]);
  assert.equal(b.end, 12);
  assert.equal(DocSet.decode(words, 0, 69), null, "id 69 of 69");
  assert.equal(DocSet.decode(words.subarray(0, 3), 0, 200), null, "past the end");
  assert.equal(DocSet.decode(Uint32Array.of(2, 7, 7), 0, 200), null, "not ascending");
  assert.equal(DocSet.decode(Uint32Array.of(0), 0, 200), null, "no id");
  assert.equal(DocSet.decode(words, 4, 199), null, "document 199 of 199");
});

Deno.test("filter postings - removing the last document of a value drops it, and a snapshot's bytes give the same sets", () => {
  const f = new FilterPostings();
  for (let id = 0; id < 70; id++) f.add(id, { n: [`v${id % 3}`], odd: id % 2 ? ["yes"] : [] });
  f.add(70, { only: ["one"] });
  f.remove(70);
  assert.equal(f.names.has("only"), false);
  assert.equal(f.docs("n", "v0")!.size, 24);
  const { names, words } = f.encode(71);
  assert.equal(words.length, 4 * 4, "four values, each a mark and three words");
  const back = FilterPostings.decode(JSON.parse(JSON.stringify(names)), words, 71)!;
  const all = Array.from({ length: 71 }, (_, i) => i);
  assert.deepEqual(back.facets(all, new Map()), f.facets(all, new Map()));
  assert.deepEqual(back.facets(all, new Map()).odd, [{ value: "yes", count: 35 }]);
  // Bytes that do not hold together are refused.
  assert.equal(FilterPostings.decode(names, words.subarray(1), 71), null);
  assert.equal(FilterPostings.decode([["n", [3]]], words, 71), null);
  const stray = words.slice();
  stray[3] |= 1 << 31; // document 95 of 71
  assert.equal(FilterPostings.decode(names, stray, 71), null);
  assert.equal(
    FilterPostings.decode([["n", []]], new Uint32Array(), 71),
    null,
    "a name without values",
  );
  const twice = [["n", ["a"]], ["n", ["b"]]];
  assert.equal(
    FilterPostings.decode(twice, Uint32Array.of(1, 0, 1, 1), 71),
    null,
    "one name twice",
  );
});

Deno.test("filter postings - random adds, removals and renumberings answer as the pages say, also when loaded", () => {
  const draw = seeded(7);
  const random = (n: number) => Math.floor(draw() * n);
  const f = new FilterPostings();
  const pages = new Map<number, Map<string, Set<string>>>();
  let next = 0;
  const check = (postings: FilterPostings, when: string) => {
    const ids = [...pages.keys()];
    const chosen = new Map([[`n${random(4)}`, [`v${random(3)}`, `v${random(40)}`]]]);
    if (random(2)) chosen.set("n4", ["v0"]);
    const sets = postings.chosen(chosen);
    const carries = (id: number, name: string, values: readonly string[]) =>
      values.some((v) => pages.get(id)!.get(name)?.has(v));
    for (const id of ids) {
      for (const [name, values] of chosen) {
        assert.equal(sets.get(name)!.has(id), carries(id, name, values), `${when}: ${id} ${name}`);
      }
    }
    const names = new Set([...pages.values()].flatMap((p) => [...p.keys()]));
    const want: Record<string, { value: string; count: number }[]> = {};
    for (const name of [...names].sort()) {
      const counts = new Map<string, number>();
      for (const id of ids) {
        if (![...chosen].every(([n, v]) => n === name || carries(id, n, v))) continue;
        for (const v of pages.get(id)!.get(name) ?? []) counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      want[name] = [...counts].map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)).slice(0, 10);
    }
    assert.deepEqual(postings.facets(ids, sets), want, when);
  };
  let wasDense = false, thenSparse = false;
  for (let step = 0; step < 3000; step++) {
    // Pages mostly come for 2,000 steps, then mostly go: n0's values turn dense, then back.
    const op = random(10), adding = step < 2000 ? op < 7 : op < 1, removing = !adding && op < 9;
    if (adding || !pages.size) {
      // A new page (or more values for one there): one of three values of n0, rare ones else.
      const id = op === 0 && pages.size ? [...pages.keys()][random(pages.size)] : next++;
      const filters: Record<string, string[]> = { n0: [`v${random(3)}`] };
      for (let k = random(3); k > 0; k--) {
        (filters[`n${1 + random(4)}`] ??= []).push(`v${random(40)}`);
      }
      f.add(id, filters);
      const page = pages.get(id) ?? new Map<string, Set<string>>();
      for (const [name, values] of Object.entries(filters)) {
        const set = page.get(name) ?? new Set<string>();
        for (const v of values) set.add(v);
        page.set(name, set);
      }
      pages.set(id, page);
    } else if (removing) {
      const id = [...pages.keys()][random(pages.size)];
      f.remove(id);
      pages.delete(id);
    } else {
      // A seal: the pages numbered 0… in their order.
      const remap = new Int32Array(next).fill(-1);
      const kept = [...pages.keys()].sort((a, b) => a - b);
      kept.forEach((id, i) => remap[id] = i);
      f.remap(remap);
      const moved = new Map(kept.map((id, i) => [i, pages.get(id)!]));
      pages.clear();
      for (const [id, page] of moved) pages.set(id, page);
      next = kept.length;
    }
    const dense = f.docs("n0", "v0")?.dense;
    if (dense) wasDense = true;
    else if (dense === false && wasDense) thenSparse = true;
    if (step % 100 === 99) {
      check(f, `step ${step}`);
      const { names, words } = f.encode(next);
      check(
        FilterPostings.decode(JSON.parse(JSON.stringify(names)), words, next)!,
        `loaded ${step}`,
      );
    }
  }
  assert.ok(wasDense && thenSparse, "n0=v0 was a list, a bitset, then a list again");
});
