/**
 * A request body handed to the app as it arrives: a known length, or chunked by RFC 9112
 * section 7.1's grammar exactly (chunk-size 1*HEXDIG, chunk-ext with BWS only where 7.1.1
 * puts it, CRLF only, trailer fields by the field-line grammar). A framing error fails the
 * stream; the server then answers for it and closes, so no byte after it is ever read as a
 * request.
 */
import { latin1, type Wire } from "../wire.ts";
import { BodyError, fieldLine, TCHAR } from "./refusal.ts";

export interface BodyLimits {
  /** From the head to the body's last byte. */
  timeoutMs: number;
  /** The most a chunked body may carry (a known length is checked against it with the head). */
  maxBodyBytes: number;
  /** The most bytes of trailer fields. */
  maxTrailerBytes: number;
}

/** What the server hears of the body: its end, or its failure. */
export interface BodyEvents {
  onEnd(): void;
  onError(err: BodyError): void;
}

const TOKEN = `${TCHAR}+`;
const QUOTED =
  '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
/** chunk-size [ chunk-ext ]: `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )`. */
const CHUNK_LINE = new RegExp(
  `^([0-9A-Fa-f]+)(?:[ \\t]*;[ \\t]*${TOKEN}(?:[ \\t]*=[ \\t]*(?:${TOKEN}|${QUOTED}))?)*$`,
);
const MAX_CHUNK_LINE = 4096;
const LF = 10, CR = 13;

/**
 * One line ended by CRLF, without it; a bare LF fails at once, a line past `max` bytes or the
 * end of the stream fails too.
 */
async function crlfLine(wire: Wire, max: number, deadline: Deadline): Promise<string> {
  for (let from = 0;;) {
    const b = wire.buffered;
    const lf = b.indexOf(LF, from);
    if (lf >= 0) {
      if (lf === 0 || b[lf - 1] !== CR) throw malformed("a line ends in a bare LF");
      return latin1(wire.consume(lf + 1).subarray(0, lf - 1));
    }
    if (b.byteLength > max) throw malformed("a line is too long");
    from = b.byteLength;
    if (!(await deadline(wire.fill()))) throw truncated();
  }
}

type Deadline = <T>(p: Promise<T>) => Promise<T>;

const malformed = (why: string) =>
  new BodyError(400, `The request body's chunked framing is malformed: ${why}.`);
const truncated = () => new BodyError(400, "The request body ended early.");

/** A request body read as the app asks for it: `length` bytes, or chunked when -1. */
export function bodyStream(
  wire: Wire,
  length: number,
  limits: BodyLimits,
  events: BodyEvents,
): ReadableStream<Uint8Array> {
  const deadlineAt = Date.now() + limits.timeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline: Deadline = (p) => {
    const ms = deadlineAt - Date.now();
    if (ms <= 0) return Promise.reject(late());
    return Promise.race([
      p,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(late()), ms)),
    ]).finally(() => clearTimeout(timer));
  };
  const late = () => new BodyError(408, "The request body did not arrive in time.");
  const chunked = length < 0;
  let left = chunked ? 0 : length; // bytes left of this body (known length) or of this chunk
  let total = 0;
  let afterData = false; // a chunk's data was read: its CRLF comes next

  /** Reads chunk lines until there is data to read (left > 0) or the body has ended (false). */
  async function nextChunk(): Promise<boolean> {
    if (afterData && (await crlfLine(wire, 2, deadline)) !== "") {
      throw malformed("a chunk's data is not followed by CRLF");
    }
    afterData = false;
    const line = await crlfLine(wire, MAX_CHUNK_LINE, deadline);
    const m = CHUNK_LINE.exec(line);
    if (!m) throw malformed("a chunk line breaks the grammar");
    const digits = m[1].replace(/^0+/, "");
    if (digits.length > 13) throw tooLarge(limits.maxBodyBytes);
    const size = digits === "" ? 0 : parseInt(digits, 16);
    if (size === 0) {
      // The trailer section: field lines, then the empty line. Their values are not kept.
      for (let bytes = 0;;) {
        const t = await crlfLine(wire, limits.maxTrailerBytes, deadline);
        if (t === "") return false;
        fieldLine(t);
        bytes += t.length + 2;
        if (bytes > limits.maxTrailerBytes) throw malformed("the trailer section is too large");
      }
    }
    total += size;
    if (total > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
    left = size;
    return true;
  }

  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      try {
        if (chunked && left === 0 && !(await nextChunk())) {
          ctrl.close();
          events.onEnd();
          return;
        }
        const part = await deadline(wire.take(Math.min(left, 64 * 1024)));
        if (part === null) throw truncated();
        left -= part.byteLength;
        if (chunked && left === 0) afterData = true;
        ctrl.enqueue(part);
        if (!chunked && left === 0) {
          ctrl.close();
          events.onEnd();
        }
      } catch (err) {
        // A field line of a trailer fails with the head's refusal: the same 400 here.
        const e = err instanceof BodyError ? err : malformed("a trailer field is malformed");
        events.onError(e);
        throw e;
      }
    },
  }, { highWaterMark: 0 });
}

const tooLarge = (max: number) => new BodyError(413, `The body must be at most ${max} bytes.`);
