/**
 * What parts of an index take in memory, for the per-process budget (INDEX_MEMORY_MB): the
 * rules every part counts itself by.
 */

/** What a Map entry with its key takes, about (a short string key, a number value). */
export const MAP_ENTRY_BYTES = 64;

/** A character beyond Latin-1: V8 then keeps the whole string at two bytes a character. */
// deno-lint-ignore no-control-regex
const WIDE = /[^\u0000-\u00ff]/;

/** A string's bytes in V8: one a character for Latin-1, else two. */
export const stringBytes = (s: string | undefined) => s ? s.length * (WIDE.test(s) ? 2 : 1) : 0;

/** A typed array's buffer's bytes, once per buffer (views of one snapshot count it once). */
export function bufferBytes(a: ArrayBufferView, seen: Set<ArrayBufferLike>): number {
  if (seen.has(a.buffer)) return 0;
  seen.add(a.buffer);
  return a.buffer.byteLength;
}
