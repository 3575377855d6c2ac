/**
 * Completing a word being typed from a site's words (vocab.ts): the most used words that
 * begin with it. A large vocabulary's words are kept in code unit order for it, made in the
 * pass after a change a bucket at a time (sorting 75,000 words at once held a search ~40 ms);
 * a smaller one is scanned (~0.5 ms for 90,000 slots, less than its order would cost to keep).
 */
import type { Vocab } from "./vocab.ts";

/** Words from which a vocabulary's completions are read through a sorted order. */
const SORTED_FROM = 20_000;

/** Each vocabulary's order, and its count of changes when it was made. */
const orders = new WeakMap<Vocab, { order: Uint32Array; changes: number }>();

/** The slots of `v`'s words in code unit order, if one was made since its last change. */
function orderOf(v: Vocab): Uint32Array | null {
  const o = orders.get(v);
  return o && o.changes === v.changes ? o.order : null;
}

/** The word in slot `i` against the units `unit(k)` of length `n`, in code unit order. */
function compare(v: Vocab, i: number, n: number, unit: (k: number) => number): number {
  const len = v.len(i), m = Math.min(len, n);
  for (let k = 0; k < m; k++) {
    const d = v.unit(i, k) - unit(k);
    if (d) return d;
  }
  return len - n;
}

/**
 * Up to `max` of the most used words of `v` longer than `prefix` that begin with it (ties in
 * slot order), read from its arena in place: no string but those returned.
 */
export function completions(v: Vocab, prefix: string, max: number): string[] {
  const order = orderOf(v), n = prefix.length, found: [number, number][] = [];
  const at = (k: number) => prefix.charCodeAt(k);
  /** Takes slot `i` if its word is a completion; whether it begins with the prefix. */
  const take = (i: number) => {
    const len = v.len(i);
    let k = 0;
    while (k < n && k < len && v.unit(i, k) === at(k)) k++;
    if (k === n && len > n) found.push([v.countAt(i), i]);
    return k === n;
  };
  if (!order) {
    for (let i = 0; i < v.capacity; i++) if (v.holdsAt(i)) take(i);
  } else {
    let lo = 0, hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(v, order[mid], n, at) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let j = lo; j < order.length && take(order[j]); j++);
  }
  return found.sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, max).map(([, i]) => v.word(i));
}

/** Makes `v`'s order if it has `sortedFrom` words or more, a bucket of one first unit a step. */
export function* prepareOrder(v: Vocab, sortedFrom = SORTED_FROM): Generator<void> {
  if (orderOf(v) || v.size < sortedFrom) return;
  const changes = v.changes, byFirst = new Map<number, number[]>();
  for (let i = 0; i < v.capacity; i++) {
    if (!v.holdsAt(i)) continue;
    const first = v.len(i) ? v.unit(i, 0) : -1, bucket = byFirst.get(first);
    if (bucket) bucket.push(i);
    else byFirst.set(first, [i]);
  }
  yield;
  const order = new Uint32Array(v.size);
  let filled = 0;
  for (const first of [...byFirst.keys()].sort((a, b) => a - b)) {
    if (v.changes !== changes) return; // a word came or went: the next pass makes it
    const bucket = byFirst.get(first)!.sort((a, b) => compare(v, a, v.len(b), (k) => v.unit(b, k)));
    order.set(bucket, filled);
    filled += bucket.length;
    yield;
  }
  if (v.changes === changes) orders.set(v, { order, changes });
}
