/**
 * Where a site's packed page texts (packed_text.ts) are held: one run of bytes, read by range.
 * By default in memory, a view of a snapshot's bytes or of the columns a seal made. A host may
 * keep them elsewhere and read them back synchronously (lib/storage/text_spill.ts keeps them in a
 * file the process holds open), since text is ~45 % of a small site's index and a search reads
 * it only for the few pages it shows.
 */
export interface BodyArena {
  /** Bytes it holds. */
  readonly byteLength: number;
  /**
   * Bytes `from` to `to` (a view or a copy, never written to by a reader). `reuse`: for a
   * reader done with them before its next read, they may be in a buffer that read reuses.
   */
  read(from: number, to: number, reuse?: boolean): Uint8Array;
}

/** An arena of bytes in memory: reads are views of them. */
export function heldArena(bytes: Uint8Array): BodyArena {
  return {
    byteLength: bytes.byteLength,
    read: (from, to) => bytes.subarray(from, to),
  };
}
