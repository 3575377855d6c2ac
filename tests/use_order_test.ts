/** UseOrder: a Map in order of use, the least recently used first, as a plain LRU would keep it. */
import assert from "node:assert/strict";
import { UseOrder } from "../lib/use_order.ts";

/** The same uses on a Map moved by delete and set each time: the order a UseOrder must keep. */
function plainUse(m: Map<string, number>, key: string, value: number) {
  m.delete(key);
  m.set(key, value);
}

Deno.test("use order - uses, new keys, deletes and a key put first leave the order a plain LRU has", () => {
  const order = new UseOrder<string, number>(), plain = new Map<string, number>();
  const steps: [string, string, number][] = [
    ["set", "a", 1],
    ["set", "b", 2],
    ["use", "b", 2], // already last: not moved
    ["use", "b", 3], // already last, a new value
    ["use", "a", 1],
    ["set", "c", 4],
    ["use", "a", 1], // no longer last: moved
    ["delete", "a", 0],
    ["use", "a", 5], // gone: comes back at the end
    ["set", "b", 6], // present: keeps its place
    ["first", "d", 7],
    ["use", "a", 5],
    ["first", "c", 8], // present: moved to the front
    ["delete", "a", 0],
    ["use", "c", 9], // the last was deleted: moved
  ];
  for (const [op, key, value] of steps) {
    if (op === "set") [order, plain].forEach((m) => m.set(key, value));
    if (op === "delete") [order, plain].forEach((m) => m.delete(key));
    if (op === "use") (order.use(key, value), plainUse(plain, key, value));
    if (op === "first") {
      order.putFirst(key, value);
      const rest = [...plain].filter(([k]) => k !== key);
      plain.clear();
      for (const [k, v] of [[key, value] as const, ...rest]) plain.set(k, v);
    }
    assert.deepEqual([...order], [...plain], `after ${op} ${key}`);
  }
  order.clear();
  order.use("z", 1);
  order.set("y", 2);
  order.use("z", 1);
  assert.deepEqual([...order.keys()], ["y", "z"]);
});
