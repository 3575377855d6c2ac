/**
 * Completing a word being typed from a site's words (vocab.ts): the most used words that
 * begin with it. Every vocabulary's words are kept in code unit order for it (two bytes a
 * word in a table of up to 65,536 slots, else four; counted in the index's bytes), made in
 * the pass after a change or kept in its snapshot; until then (a change since) its slots are
 * scanned in one tight loop.
 */
import type { Vocab } from "./vocab.ts";

/** A vocabulary's slots in the order of their words. */
export type SlotOrder = Uint16Array | Uint32Array;

/** Each vocabulary's order, and its count of changes when it was made. */
const orders = new WeakMap<Vocab, { order: SlotOrder; changes: number }>();

/** Words sorted (in buckets of their first two units) between yields of the pass. */
const STEP_WORDS = 1_500;

/** Whether an order of a table of `capacity` slots takes four bytes a slot (else two). */
export const wideOrder = (capacity: number) => capacity > 0x10000;

/** The slots of `v`'s words in code unit order, if one was made since its last change. */
export function orderOf(v: Vocab): SlotOrder | null {
  const o = orders.get(v);
  if (!o || o.changes === v.changes) return o?.order ?? null;
  orders.delete(v); // a word came or went: freed now, not when the pass makes the next
  return null;
}

/** Takes `order` (a snapshot's) as `v`'s, if it can be: one held slot for each word. */
export function adoptOrder(v: Vocab, order: SlotOrder): boolean {
  if (order.length !== v.size || wideOrder(v.capacity) !== (order instanceof Uint32Array)) {
    return false;
  }
  for (let j = 0; j < order.length; j++) {
    if (order[j] >= v.capacity || !v.holdsAt(order[j])) return false;
  }
  orders.set(v, { order, changes: v.changes });
  return true;
}

/** An empty order for `size` words of a table of `capacity` slots. */
const orderFor = (capacity: number, size: number): SlotOrder =>
  wideOrder(capacity) ? new Uint32Array(size) : new Uint16Array(size);

/** The word in slot `i` against the units `unit(k)` of length `n`, in code unit order. */
function compare(v: Vocab, i: number, n: number, unit: (k: number) => number): number {
  const len = v.len(i), m = Math.min(len, n);
  for (let k = 0; k < m; k++) {
    const d = v.unit(i, k) - unit(k);
    if (d) return d;
  }
  return len - n;
}

/** The word in slot `a` against the word in slot `b`. */
const compareSlots = (v: Vocab, a: number, b: number) =>
  compare(v, a, v.len(b), (k) => v.unit(b, k));

/**
 * The `max` most used of the slots offered (ties: the lower slot), kept sorted as they come:
 * a short prefix's thousands of words are never all kept and sorted.
 */
class Top {
  counts: number[] = [];
  slots: number[] = [];

  constructor(private max: number) {}

  offer(count: number, slot: number) {
    const { counts, slots } = this;
    let at = counts.length;
    while (
      at > 0 && (counts[at - 1] < count || (counts[at - 1] === count && slots[at - 1] > slot))
    ) {
      at--;
    }
    if (at >= this.max) return;
    counts.splice(at, 0, count);
    slots.splice(at, 0, slot);
    if (counts.length > this.max) counts.pop(), slots.pop();
  }
}

/**
 * Up to `max` of the most used words of `v` longer than `prefix` that begin with it (ties in
 * slot order), read from its arena in place: no string but those returned.
 */
export function completions(v: Vocab, prefix: string, max: number): string[] {
  if (max <= 0) return [];
  const order = orderOf(v), n = prefix.length, top = new Top(max);
  if (!order) v.eachLonger(prefix, (i) => top.offer(v.countAt(i), i));
  else {
    const at = (k: number) => prefix.charCodeAt(k);
    // The words that begin with the prefix are one run of the order: its first, then its end.
    let lo = 0, hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(v, order[mid], n, at) < 0) lo = mid + 1;
      else hi = mid;
    }
    /** Whether the word in slot `i` begins with the prefix. */
    const begins = (i: number) => {
      if (v.len(i) < n) return false;
      for (let k = 0; k < n; k++) if (v.unit(i, k) !== at(k)) return false;
      return true;
    };
    let end = order.length;
    for (let from = lo; from < end;) {
      const mid = (from + end) >>> 1;
      if (begins(order[mid])) from = mid + 1;
      else end = mid;
    }
    for (let j = lo; j < end; j++) {
      const i = order[j];
      if (v.len(i) > n) top.offer(v.countAt(i), i);
    }
  }
  return top.slots.map((i) => v.word(i));
}

/** Makes `v`'s order if there is none since its last change: a few steps of the pass after one. */
export function* prepareOrder(v: Vocab): Generator<void> {
  if (orderOf(v)) return;
  const changes = v.changes;
  const order = yield* sorted(v, () => v.changes !== changes);
  if (order) orders.set(v, { order, changes });
}

/** `v`'s order, made in steps if there is none (a snapshot of it). */
function* madeOrder(v: Vocab): Generator<void, SlotOrder> {
  const current = orderOf(v);
  if (current) return current;
  const order = (yield* sorted(v, () => false))!;
  orders.set(v, { order, changes: v.changes });
  return order;
}

/**
 * `v` packed for a snapshot (`Vocab.packed`), its typo filter and its order: `v`'s carried
 * over to the packed table's slots where it has them, else made; in steps (yielding between
 * the packing, the filter and the sort's pieces). `v` must not change until they are done.
 */
export function* packedWords(v: Vocab): Generator<void, { packed: Vocab; order: SlotOrder }> {
  const current = orderOf(v), moves = current ? new Int32Array(v.capacity) : undefined;
  const packed = v.packed(moves);
  yield;
  packed.prepareFilter();
  yield;
  if (packed === v || !current) return { packed, order: yield* madeOrder(packed) };
  const order = orderFor(packed.capacity, current.length);
  for (let j = 0; j < current.length; j++) order[j] = moves![current[j]];
  orders.set(packed, { order, changes: packed.changes });
  return { packed, order };
}

/**
 * `v`'s slots in the order of their words, yielding between steps; null when `changed()`
 * says a word came or went meanwhile (the next pass makes it). Words go to buckets by their
 * first two units (a pass over the slots), the buckets in the order of their keys, each sorted
 * by comparing its words unit by unit: a step reads 4,096 slots or sorts about 1,500 words.
 */
function* sorted(v: Vocab, changed: () => boolean): Generator<void, SlotOrder | null> {
  const byKey = new Map<number, number[]>();
  for (let i = 0; i < v.capacity; i++) {
    if ((i & 0xfff) === 0xfff) {
      yield;
      if (changed()) return null;
    }
    if (!v.holdsAt(i)) continue;
    // An absent unit keys as 0, before every unit (a word sorts before its longer ones).
    const len = v.len(i),
      key = (len ? v.unit(i, 0) + 1 : 0) * 0x10001 + (len > 1 ? v.unit(i, 1) + 1 : 0);
    const bucket = byKey.get(key);
    if (bucket) bucket.push(i);
    else byKey.set(key, [i]);
  }
  const order = orderFor(v.capacity, v.size), keys = [...byKey.keys()].sort((a, b) => a - b);
  let filled = 0, work = 0;
  for (const key of keys) {
    const bucket = byKey.get(key)!;
    if (bucket.length > 1) bucket.sort((a, b) => compareSlots(v, a, b));
    order.set(bucket, filled);
    filled += bucket.length;
    if ((work += bucket.length) >= STEP_WORDS) {
      work = 0;
      yield;
      if (changed()) return null;
    }
  }
  return order;
}
