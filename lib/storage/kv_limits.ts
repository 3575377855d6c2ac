/**
 * Deno KV's limits, in one place, and the helpers that keep writes within them: exact
 * sizes of keys and values as KV counts them, a check that throws a typed error before
 * KV would, lists capped to fit one value, and writes split into commits that fit.
 * Figures from denokv (MAX_VALUE_SIZE_BYTES and friends); kv_limits_test.ts proves each
 * against a real KV, so an upgrade that changes one fails there.
 */
import { serialize } from "node:v8";
import { drain, drainInSlices } from "../slices.ts";

export const KV_LIMITS = {
  /** One value, serialized. */
  valueBytes: 65_536,
  /** One key written, encoded. */
  keyBytes: 2_048,
  /** All keys of one atomic commit. */
  commitKeyBytes: 81_920,
  /** All keys and values of one atomic commit. */
  commitBytes: 819_200,
  mutations: 1_000,
  checks: 100,
} as const;

/** A write over one of KV's limits, found before KV refuses it. */
export class KvLimitError extends Error {
  constructor(readonly what: "key" | "value", readonly bytes: number, readonly max: number) {
    super(`KV ${what} of ${bytes} bytes is over the limit of ${max}.`);
  }
}

/** Whether `err` is KV refusing a write for its size or count (ours or Deno's own TypeError). */
export function isKvLimitError(err: unknown): boolean {
  return err instanceof KvLimitError ||
    (err instanceof TypeError && /too large|Too many/i.test(err.message));
}

/** Bytes a value takes in KV: raw bytes for a Uint8Array, else V8's serialization. */
export function valueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Deno.KvU64) return 8;
  return serialize(value).byteLength;
}

/**
 * An upper bound of valueBytes for plain data (strings, numbers, arrays, plain objects),
 * without serializing: V8 stores a string in one byte a character or two (a Latin-1
 * string cut from a wider one stays two-byte), so two are counted. NaN for anything else,
 * which valueBytes then measures.
 */
export function boundBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return 2 * value.length + 7;
    case "number":
      return 9;
    case "boolean":
    case "undefined":
      return 1;
    case "object": {
      if (value === null) return 1;
      let n = 12;
      if (Array.isArray(value)) {
        for (const v of value) n += boundBytes(v);
        return n;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return NaN;
      for (const [k, v] of Object.entries(value)) n += boundBytes(k) + boundBytes(v);
      return n;
    }
    default:
      return NaN;
  }
}

/** Bytes to count for a value in a budget: the cheap bound, or the exact size where there is none. */
export const sizeOf = (value: unknown) => {
  const b = boundBytes(value);
  return Number.isNaN(b) ? valueBytes(value) : b;
};

const utf8 = new TextEncoder();

/** Bytes a key takes in KV's encoding (tag, escaped contents, terminator per part). */
export function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    // deno-lint-ignore no-control-regex -- ASCII without NUL: one byte a character, no escape
    if (typeof part === "string" && /^[\x01-\x7f]*$/.test(part)) n += 2 + part.length;
    else if (typeof part === "string" || part instanceof Uint8Array) {
      const bytes = typeof part === "string" ? utf8.encode(part) : part;
      n += 2 + bytes.length;
      for (const b of bytes) if (b === 0) n++; // a zero byte is escaped as two
    } else if (typeof part === "number") n += 9;
    else if (typeof part === "bigint") n += 2 + Math.ceil(part.toString(16).length / 2);
    else n += 1; // boolean
  }
  return n;
}

/** Whether a key may be written, with `spare` bytes left for parts appended later. */
export const keyFits = (key: Deno.KvKey, spare = 0) => keyBytes(key) + spare <= KV_LIMITS.keyBytes;

/** Whether a value may be written, `spare` bytes under the limit. */
export const valueFits = (value: unknown, spare = 0) =>
  sizeOf(value) + spare <= KV_LIMITS.valueBytes ||
  valueBytes(value) + spare <= KV_LIMITS.valueBytes;

/**
 * Throws KvLimitError when the key or the value is over KV's limit; answers the value's
 * bytes, or a bound of them (serializing only values near the limit).
 */
export function checkWrite(key: Deno.KvKey, value: unknown): number {
  const k = keyBytes(key);
  if (k > KV_LIMITS.keyBytes) throw new KvLimitError("key", k, KV_LIMITS.keyBytes);
  const bound = sizeOf(value);
  if (bound <= KV_LIMITS.valueBytes) return bound;
  const v = valueBytes(value);
  if (v > KV_LIMITS.valueBytes) throw new KvLimitError("value", v, KV_LIMITS.valueBytes);
  return v;
}

/** What list helpers fill a value to by default: half the limit, well clear of it. */
export const LIST_BYTES = KV_LIMITS.valueBytes / 2;

/**
 * The longest head of `items` whose array serializes within `maxBytes`, and how many
 * were left out. Sizes add up item by item, so it is linear.
 */
export function capList<T>(items: readonly T[], maxBytes = LIST_BYTES) {
  const kept: T[] = [];
  let bytes = 16; // header, array tag and length, end tag
  for (const item of items) {
    bytes += sizeOf(item);
    if (bytes > maxBytes) break;
    kept.push(item);
  }
  return { kept, left: items.length - kept.length };
}

/**
 * Splits `items` into consecutive groups each serializing within `maxBytes`; an item too
 * large for any group alone is returned apart, in `oversize`.
 */
export function splitList<T>(items: readonly T[], maxBytes = LIST_BYTES) {
  const groups: T[][] = [];
  const oversize: T[] = [];
  let group: T[] = [];
  let bytes = 16;
  for (const item of items) {
    const b = sizeOf(item);
    if (b + 16 > maxBytes) {
      oversize.push(item);
      continue;
    }
    if (bytes + b > maxBytes) {
      groups.push(group);
      [group, bytes] = [[], 16];
    }
    group.push(item);
    bytes += b;
  }
  if (group.length) groups.push(group);
  return { groups, oversize };
}

/** Room one commit leaves for writes after its checks and other mutations. */
export interface CommitRoom {
  mutations?: number;
  keyBytes?: number;
  bytes?: number;
}

/** Writes grouped for one atomic commit each. */
type Batches = [Deno.KvKey, unknown][][];

/**
 * Splits `[key, value]` writes into batches that each fit one atomic commit beside
 * `reserved` (the commit's own checks and record). Every write is checked first:
 * one over a limit throws KvLimitError before anything is written.
 */
export function commitBatches(
  writes: readonly [Deno.KvKey, unknown][],
  reserved: CommitRoom = {},
): Batches {
  return drain(batching(writes, reserved));
}

/**
 * `commitBatches` for many writes (a crawl's cut of tens of thousands of URLs), checked in
 * slices: in one piece 36,000 writes held the event loop ~270 ms.
 */
export function commitBatchesInSlices(
  writes: readonly [Deno.KvKey, unknown][],
  reserved: CommitRoom = {},
): Promise<Batches> {
  return drainInSlices(batching(writes, reserved));
}

/** commitBatches' work, a step for each write checked. */
function* batching(
  writes: readonly [Deno.KvKey, unknown][],
  reserved: CommitRoom,
): Generator<void, Batches> {
  // Kept 10% under the commit totals: checks count towards them too.
  const maxMutations = KV_LIMITS.mutations - (reserved.mutations ?? 0) - 1;
  const maxKeys = KV_LIMITS.commitKeyBytes * 0.9 - (reserved.keyBytes ?? 0);
  const maxBytes = KV_LIMITS.commitBytes * 0.9 - (reserved.bytes ?? 0);
  const batches: Batches = [];
  let batch: [Deno.KvKey, unknown][] = [];
  let keys = 0, bytes = 0;
  for (const w of writes) {
    const v = checkWrite(w[0], w[1]);
    const k = keyBytes(w[0]);
    if (
      batch.length &&
      (batch.length >= maxMutations || keys + k > maxKeys || bytes + k + v > maxBytes)
    ) {
      batches.push(batch);
      [batch, keys, bytes] = [[], 0, 0];
    }
    batch.push(w);
    keys += k;
    bytes += k + v;
    yield;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

/** Cuts a string to at most `maxBytes` of UTF-8, never inside a character. */
export function cutUtf8(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s;
  const bytes = utf8.encode(s);
  if (bytes.length <= maxBytes) return s;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}
