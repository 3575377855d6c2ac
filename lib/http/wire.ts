/** HTTP/1.1 on a socket, shared by our server, the crawler's client and the start's warm-up. */

const READ_CHUNK = 8 * 1024;
const EMPTY = new Uint8Array();

export const CRLF = new TextEncoder().encode("\r\n");
const HEAD_END = new TextEncoder().encode("\r\n\r\n");

/** Where `needle` starts in `hay` at or after `from`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= hay.byteLength - needle.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Header bytes as text, one character per byte (RFC 9110 section 5.5: ISO-8859-1, which
 * TextDecoder's "latin1", being windows-1252, is not).
 */
export function latin1(b: Uint8Array): string {
  // Most heads are ASCII, which UTF-8 decodes alike and natively; any other byte decodes to a
  // character past 0x7f (itself or U+FFFD), so the check below sees it.
  const ascii = utf8.decode(b);
  if (!BEYOND_ASCII.test(ascii)) return ascii;
  let out = "";
  for (let at = 0; at < b.byteLength; at += CHARS_PER_CALL) {
    const part = b.subarray(at, at + CHARS_PER_CALL);
    out += String.fromCharCode.apply(null, part as unknown as number[]);
  }
  return out;
}
/** Arguments to one fromCharCode call, well within any engine's limit. */
const CHARS_PER_CALL = 4096;
/** BOM kept: a stripped one would leave ASCII behind that the bytes were not. */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** Writes all of `bytes` to `out` (a socket, stdout): a write may take only part of them. */
export async function sendAll(
  out: { write(p: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  for (let at = 0; at < bytes.byteLength;) at += await out.write(bytes.subarray(at));
}

/** A response's head (latin1 text, without the blank line): its status and its fields. */
export function responseHead(text: string): { status: number; headers: Headers } {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]);
  if (!m) throw new TypeError("not an HTTP/1.x response");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const h = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    try {
      if (h) headers.append(h[1], h[2]);
    } catch { /* a value Headers refuses: dropped, as browsers do */ }
  }
  return { status: Number(m[1]), headers };
}

/** A connection's unread bytes, and one read at a time from its socket. */
export class Wire {
  #pending: Uint8Array = EMPTY;
  #scratch = new Uint8Array(READ_CHUNK);
  #filling: Promise<boolean> | null = null;
  constructor(readonly conn: Deno.Conn) {}

  /** Bytes read and not yet consumed. */
  get buffered(): Uint8Array {
    return this.#pending;
  }

  /** Reads once more into the unread bytes; false at end of stream or on a closed socket. */
  fill(): Promise<boolean> {
    // Not an async function: a read is the hot path of every request, and each layer of
    // promises costs as much as the bookkeeping it wraps.
    return this.#filling ??= this.conn.read(this.#scratch).then((n) => {
      this.#filling = null;
      if (n === null) return false;
      const had = this.#pending.byteLength;
      if (had === 0) this.#pending = this.#scratch.slice(0, n);
      else {
        const next = new Uint8Array(had + n);
        next.set(this.#pending);
        next.set(this.#scratch.subarray(0, n), had);
        this.#pending = next;
      }
      return true;
    }, () => {
      this.#filling = null;
      return false;
    });
  }

  /** Consumes `n` unread bytes. */
  consume(n: number): Uint8Array {
    const out = this.#pending.subarray(0, n);
    this.#pending = this.#pending.subarray(n);
    return out;
  }

  /** Up to `max` bytes: what is unread, else one read's worth; null at end of stream. */
  async take(max: number): Promise<Uint8Array | null> {
    if (this.#pending.byteLength === 0 && !(await this.fill())) return null;
    return this.consume(Math.min(max, this.#pending.byteLength)).slice();
  }

  /** One CRLF-terminated line (without it); null at end of stream or past `max` bytes. */
  async line(max: number): Promise<string | null> {
    for (let from = 0;;) {
      const at = indexOf(this.#pending, CRLF, from);
      if (at >= 0) return latin1(this.consume(at + 2).subarray(0, at));
      if (this.#pending.byteLength > max) return null;
      from = Math.max(0, this.#pending.byteLength - 1);
      if (!(await this.fill())) return null;
    }
  }

  /** A message head up to its empty line (not included); null at end of stream or past `max` bytes. */
  async head(max: number): Promise<Uint8Array | null> {
    for (let from = 0;;) {
      const end = indexOf(this.#pending, HEAD_END, from);
      if (end >= 0) return end > max ? null : this.consume(end + 4).subarray(0, end);
      if (this.#pending.byteLength > max) return null;
      from = Math.max(0, this.#pending.byteLength - 3);
      if (!(await this.fill())) return null;
    }
  }
}
