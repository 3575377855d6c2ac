/**
 * The process's one inflater for packed text's blocks (packed_text.ts): node:zlib's native
 * handle, reset for each block, writing into one buffer that is used again and again.
 * `inflateRawSync` makes a stream, a native inflater, its window and a Buffer per call (twice
 * the cost of inflating 8 KiB). A read that stops inside a block can carry on later from where
 * it stopped, while no other block has been inflated since. Where node:zlib's internals are
 * not as expected, each block is inflated whole the usual way.
 */
import zlib from "node:zlib";

const { inflateRawSync } = zlib;

/** UTF-8 bytes of a block at most (packed_text.ts makes none longer). */
export const BLOCK = 8192;

/** The native handle and where it reports the room left (node:zlib's internals). */
interface Handle {
  reset(): void;
  writeSync(
    flush: number,
    input: Uint8Array,
    inOff: number,
    inLen: number,
    out: Uint8Array,
    outOff: number,
    outLen: number,
  ): void;
  onerror: (message: string) => void;
}

function open() {
  const z = zlib.createInflateRaw() as unknown as { _handle?: Handle; _writeState?: Uint32Array };
  const handle = z._handle, state = z._writeState;
  if (typeof handle?.writeSync !== "function" || typeof handle.reset !== "function") return null;
  if (!(state instanceof Uint32Array)) return null;
  // A bad block is this read's error, not the stream's: the stream would close the handle
  // later, and Deno's close of a handle that failed does not return (2.9.6).
  const failed = { message: "" };
  handle.onerror = (message: string) => failed.message = message || "inflate failed";
  return { handle, state, failed };
}

const native = open();

/** The one output buffer: a block's bytes from its start (one byte more shows a longer block). */
const out = new Uint8Array(BLOCK + 1);

/** Whose read the handle's stream and `out` hold now, and how far it has gone. */
let owner: object | null = null, ownerBlock = -1;
let outEnd = 0, inRead = 0, ended = false;

/** A block inflated so far: its bytes are `bytes[0, end)`; `ended` when that is all of it. */
export interface Inflated {
  bytes: Uint8Array;
  end: number;
  ended: boolean;
}

/**
 * Block `data` inflated from its start to `upTo` bytes at least (or its end). `reader` and
 * `block` (its number in the reader's text) name the read: while the inflater was used for
 * nothing else since that read's last call, it carries on from there, not from the start.
 * The bytes are valid until the next call. A block that inflates to more than BLOCK bytes
 * (not one of ours) is inflated whole.
 */
export function inflateTo(
  reader: object,
  block: number,
  data: Uint8Array,
  upTo: number,
): Inflated {
  if (!native) return whole(data);
  const { handle, state, failed } = native;
  if (owner !== reader || ownerBlock !== block) {
    handle.reset();
    [owner, ownerBlock, outEnd, inRead, ended] = [reader, block, 0, 0, false];
  }
  while (!ended && outEnd < upTo) {
    const room = Math.min(upTo - outEnd, out.length - outEnd);
    if (room <= 0) return whole(data); // longer than a block of ours
    failed.message = "";
    handle.writeSync(
      zlib.constants.Z_FINISH,
      data,
      inRead,
      data.length - inRead,
      out,
      outEnd,
      room,
    );
    if (failed.message) {
      owner = null;
      throw new Error(`packed text: ${failed.message}`);
    }
    // state: [room left, input left]; room left means the block's stream ended.
    outEnd += room - state[0];
    inRead = data.length - state[1];
    if (state[0] > 0) {
      ended = true;
      if (state[1] !== 0 || outEnd > BLOCK) return whole(data);
    }
  }
  return { bytes: out, end: outEnd, ended };
}

/** Hands a read on to another reader (the same read, kept under a new name). */
export function handOver(from: object, to: object) {
  if (owner === from) owner = to;
}

/** Blocks `data` inflated whole, into a Buffer of its own (the handle is left to no one). */
function whole(data: Uint8Array): Inflated {
  owner = null;
  const bytes = inflateRawSync(data);
  return { bytes, end: bytes.length, ended: true };
}

/** Leaves the inflater to no read: the next one starts afresh. */
export function release() {
  owner = null;
}
