/**
 * Deflating a page's text block by block with one native deflater, reset for each block, and
 * the reusable node:zlib handle that packed_text.ts's inflater is made of too. `deflateRawSync`
 * makes a stream, a native deflater (~256 KiB of zlib state) and a 16 KiB output buffer per
 * call, and returns a view of that buffer, which the index's copy cannot free: 7,000 blocks
 * packed in isolation held 114 MB until V8's next full collection. Where node:zlib's internals
 * are not as expected, each block is deflated the usual way.
 */
import zlib from "node:zlib";

/** A native zlib handle and where it reports the room left (node:zlib's internals). */
export interface ZlibHandle {
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

/**
 * The handle of a node:zlib stream, its write state ([room left, input left]) and the last
 * error it reported; null where node:zlib is not built as expected.
 */
export function reusableHandle(stream: unknown) {
  const z = stream as { _handle?: ZlibHandle; _writeState?: Uint32Array };
  const handle = z._handle, state = z._writeState;
  if (typeof handle?.writeSync !== "function" || typeof handle.reset !== "function") return null;
  if (!(state instanceof Uint32Array)) return null;
  // A bad block is this call's error, not the stream's: the stream would close the handle
  // later, and Deno's close of a handle that failed does not return (2.9.6).
  const failed = { message: "" };
  handle.onerror = (message: string) => failed.message = message || "zlib failed";
  return { handle, state, failed };
}

let reused: ReturnType<typeof reusableHandle> | undefined;
/** Room for any block we make: deflate adds at most a few bytes per 16 KiB it cannot shrink. */
let out = new Uint8Array(0);

/**
 * `part` deflated (raw deflate, zlib's default level: the bytes `deflateRawSync` makes), as a
 * new buffer of exactly its length.
 */
export function deflateBlock(part: Uint8Array): Uint8Array {
  reused ??= reusableHandle(zlib.createDeflateRaw());
  if (!reused) return deflateRawSync(part);
  const { handle, state, failed } = reused;
  const room = part.length + (part.length >> 3) + 64;
  if (out.length < room) out = new Uint8Array(room);
  failed.message = "";
  handle.reset();
  handle.writeSync(zlib.constants.Z_FINISH, part, 0, part.length, out, 0, out.length);
  // Input left or no room left: not finished here (never seen); the usual way is sure to be.
  if (failed.message || state[1] !== 0 || state[0] === 0) return deflateRawSync(part);
  return out.slice(0, out.length - state[0]);
}

/** One call's deflate, copied out of the 16 KiB buffer it views. */
const deflateRawSync = (part: Uint8Array) => zlib.deflateRawSync(part).slice();
