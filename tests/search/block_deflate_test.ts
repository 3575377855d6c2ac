/**
 * Deflating a text's blocks with one reused deflater: the bytes node:zlib's `deflateRawSync`
 * makes, each block alone, whatever came before it, in a buffer of its own.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { deflateBlock } from "../../lib/search/engine/store/block_deflate.ts";
import { seeded } from "../fixtures/seeded.ts";

/** Deterministic pseudo-random bytes. */
function bytes(seed: number, length: number, alphabet: number): Uint8Array {
  const rand = seeded(seed);
  return Uint8Array.from({ length }, () => 32 + Math.floor(rand() * alphabet));
}

Deno.test("block deflate - the same bytes as deflateRawSync, block after block, each inflating alone", () => {
  // Text-like (small alphabet), incompressible (every byte value), tiny and empty blocks, in
  // an order where a big block follows small ones: a reset deflater carries nothing over.
  const blocks = [
    bytes(1, 8192, 26),
    bytes(2, 10, 26),
    new Uint8Array(0),
    Uint8Array.from({ length: 8192 }, (_, i) => (i * 2654435761) >>> 24),
    bytes(3, 8192, 90),
    bytes(4, 3000, 4),
  ];
  for (const [i, part] of blocks.entries()) {
    const made = deflateBlock(part);
    assert.deepEqual(made, new Uint8Array(zlib.deflateRawSync(part)), `block ${i}`);
    assert.deepEqual(new Uint8Array(zlib.inflateRawSync(made)), part, `block ${i} inflates back`);
    // A buffer of its own, exactly as long: kept in an index, it holds nothing more.
    assert.equal(made.byteOffset, 0);
    assert.equal(made.buffer.byteLength, made.length);
  }
});
