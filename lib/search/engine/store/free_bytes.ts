/**
 * Freeing a buffer the index alone holds, at once. A dead buffer's bytes otherwise stay until
 * V8's next collection, which on an idle server comes seconds after an ingest ends (its memory
 * reducer waits for the allocation rate to fall): the transient bytes of packing a page's text
 * would hold ~40 KB a page that long.
 */

/** Frees `bytes` now when it views its whole buffer (a part of a shared buffer is left alone). */
export function freeBytes(bytes: Uint8Array) {
  const buf = bytes.buffer;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === buf.byteLength;
  if (whole && buf instanceof ArrayBuffer && !buf.detached && buf.byteLength > 0) buf.transfer(0);
}
