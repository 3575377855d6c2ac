/**
 * Long pages' passages as a snapshot keeps them beside the index (query/passages.ts makes and
 * adopts them): per row a page's internal id, its passages' count (0: one passage), its pairs
 * from `from[row]` in `hashes` and `at`, and its headings that are names, one a line, in the
 * UTF-8 of `names` from `nameFrom[row]`.
 */
export interface PassageBlocks {
  ids: Uint32Array;
  counts: Uint16Array;
  from: Uint32Array;
  hashes: Uint32Array;
  at: Uint16Array;
  nameFrom: Uint32Array;
  names: Uint8Array;
}
