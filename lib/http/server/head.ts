/**
 * A request head read and parsed by RFC 9112's grammar: the request-line (section 3), field
 * lines (section 5), Host (section 3.2), and the message's framing (section 6). Nothing is
 * trimmed or folded into shape: what the grammar does not allow is refused.
 */
import { latin1, type Wire } from "../wire.ts";
import { fieldLine, listElements, Refusal, TOKEN } from "./refusal.ts";

/** Methods the server passes to the app; any other token is a 501 (they are case-sensitive). */
export const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export interface Head {
  method: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1 (and later 1.x minors, answered as 1.1). */
  minor: number;
  /** The URL the app sees, built from checked parts only; null for `OPTIONS *`. */
  url: string | null;
  /** Name and value of each field line, as sent (OWS removed). */
  headers: [string, string][];
  /** Body length: 0 for none, -1 for chunked. */
  length: number;
  /** The client asked to close after this exchange (or speaks HTTP/1.0). */
  close: boolean;
  /** `Expect: 100-continue` from an HTTP/1.1 client (HTTP/1.0 ones are ignored, RFC 9110 10.1.1). */
  expectContinue: boolean;
}

export interface HeadLimits {
  maxHeaderBytes: number;
  /** A longer request-line is answered 414 (RFC 9112 section 3). */
  maxRequestLineBytes: number;
}

const CR = 13, LF = 10;

/**
 * Reads a head up to its empty line (not included); null when the client leaves first.
 * Empty lines before the request-line are skipped (RFC 9112 section 2.2). Lines end in CRLF
 * only: a bare LF is refused as soon as it arrives, not after a deadline. `onData` is told of
 * each read.
 */
export async function readHead(
  wire: Wire,
  limits: HeadLimits,
  onData: () => void,
): Promise<Uint8Array | null> {
  let from = 0, lineEnded = false;
  for (;;) {
    let b = wire.buffered;
    if (!lineEnded) {
      let skip = 0;
      while (b[skip] === CR && b[skip + 1] === LF) skip += 2;
      if (skip) {
        wire.consume(skip);
        b = wire.buffered;
        from = 0;
      }
    }
    for (let lf; (lf = b.indexOf(LF, from)) >= 0; from = lf + 1) {
      if (lf === 0 || b[lf - 1] !== CR) {
        throw new Refusal(400, "A line of the request head ends in a bare LF, not CRLF.");
      }
      if (!lineEnded) {
        if (lf + 1 > limits.maxRequestLineBytes) throw tooLong();
        lineEnded = true;
      } else if (b[lf - 2] === LF) { // CRLF CRLF: the empty line ending the head
        if (lf + 1 > limits.maxHeaderBytes) throw tooLarge();
        return wire.consume(lf + 1).subarray(0, lf - 3);
      }
    }
    from = b.byteLength;
    if (!lineEnded && b.byteLength > limits.maxRequestLineBytes) throw tooLong();
    if (b.byteLength > limits.maxHeaderBytes) throw tooLarge();
    if (!(await wire.fill())) return null;
    onData();
  }
}

const tooLong = () => new Refusal(414, "The request-line is too long.");
const tooLarge = () => new Refusal(431, "The request head is too large.");

/** The field names parseHead reads; other names are passed on without being lower-cased. */
const FRAMING_NAMES = ["host", "transfer-encoding", "content-length", "connection", "expect"];
const FRAMING_LENGTHS = new Set(FRAMING_NAMES.map((name) => name.length));

const REQUEST_LINE = /^([^ ]+) ([^ ]+) HTTP\/(\d)\.(\d)$/;
/** Bytes a request-target may hold: RFC 3986's, plus [ ] ^ ` { | } that browsers send raw. */
const TARGET_BYTES = /^(?:[!$&-;=?-\[\]-~]|%[0-9A-Fa-f]{2})*$/;
const ABSOLUTE = /^https?:\/\/([^/?]*)(.*)$/i;
/** uri-host [":" port]: an IP-literal of hex digits, colons and dots, or a reg-name. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|(?:[-A-Za-z0-9._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::\d*)?$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * Parses a head (without its empty line). `self` is the server's own authority, the URL's
 * host for an HTTP/1.0 request without Host or an empty Host. Refuses what the grammar does not
 * allow, and framings the server cannot read safely (RFC 9112 section 6.3).
 */
export function parseHead(bytes: Uint8Array, self: string, maxBodyBytes: number): Head {
  const lines = latin1(bytes).split("\r\n");
  const m = REQUEST_LINE.exec(lines[0]);
  if (!m || !TOKEN.test(m[1])) throw new Refusal(400, "The request-line is malformed.");
  if (m[3] !== "1") throw new Refusal(505, "Only HTTP/1.0 and HTTP/1.1 are spoken here.");
  const method = m[1], target = m[2], minor = m[4] === "0" ? 0 : 1;
  if (!METHODS.has(method)) throw new Refusal(501, `The method ${method} is not implemented.`);

  const headers: [string, string][] = [];
  let host: string | null = null, te: string | null = null, cl: string | null = null;
  let connection = "", expect = "";
  for (let i = 1; i < lines.length; i++) {
    const f = fieldLine(lines[i]);
    headers.push(f);
    if (!FRAMING_LENGTHS.has(f[0].length)) continue; // none of the names read below
    const name = f[0].toLowerCase();
    if (name === "host") {
      if (host !== null) throw new Refusal(400, "Host is sent more than once.");
      host = f[1];
    } else if (name === "transfer-encoding") te = te === null ? f[1] : `${te}, ${f[1]}`;
    else if (name === "content-length") cl = cl === null ? f[1] : `${cl}, ${f[1]}`;
    else if (name === "connection") connection += "," + f[1];
    else if (name === "expect") expect += "," + f[1];
  }
  if (host === null && minor === 1) throw new Refusal(400, "HTTP/1.1 requests must send Host.");
  if (host !== null && !HOST.test(host)) throw new Refusal(400, "The Host header is not valid.");

  const url = requestUrl(method, target, host, self);
  if (url !== null && !target.startsWith("/")) {
    // Absolute-form: its authority is the request's host, for the app's Host too (3.2.2).
    const i = headers.findIndex(([name]) => name.toLowerCase() === "host");
    const field: [string, string] = ["Host", new URL(url).host];
    if (i >= 0) headers[i] = field;
    else headers.push(field);
  }
  const closes = connection !== "" &&
    listElements(connection).some((t) => t.toLowerCase() === "close");
  return {
    method,
    minor,
    url,
    headers,
    length: bodyLength(te, cl, minor, maxBodyBytes),
    close: closes || minor === 0,
    expectContinue: minor === 1 && expect !== "" &&
      listElements(expect).some((e) => e.toLowerCase() === "100-continue"),
  };
}

/**
 * The URL of a request-target (RFC 9112 section 3.2): origin-form with a checked Host, or
 * absolute-form (whose authority wins over Host), or `*` for OPTIONS. Paths with dot-segments
 * are refused: no client sends them, and a proxy would route them by another path than ours.
 */
function requestUrl(method: string, target: string, host: string | null, self: string) {
  if (target === "*") {
    if (method !== "OPTIONS") throw new Refusal(400, "Only OPTIONS takes the target *.");
    return null;
  }
  let authority = host ?? "", path = target;
  if (!target.startsWith("/")) {
    const abs = ABSOLUTE.exec(target);
    if (!abs || !HOST.test(abs[1])) throw new Refusal(400, "The request-target is not valid.");
    authority = abs[1];
    path = abs[2] === "" ? "/" : abs[2].startsWith("?") ? "/" + abs[2] : abs[2];
    if (!path.startsWith("/")) throw new Refusal(400, "The request-target is not valid.");
  }
  const query = path.indexOf("?");
  if (!TARGET_BYTES.test(path) || DOT_SEGMENT.test(query < 0 ? path : path.slice(0, query))) {
    throw new Refusal(400, "The request-target is not valid.");
  }
  if (authority === "" || authority.startsWith(":")) authority = self;
  try {
    // The URL parser leaves such a path as it is: only the authority needs its hand.
    if (PLAIN_PATH.test(path)) return originOf(authority) + path;
    return new URL(`http://${authority}${path}`).href;
  } catch {
    throw new Refusal(400, "The Host header is not valid.");
  }
}

/** A path and query of characters the URL parser copies unchanged (no ' [ ] ^ ` { | }). */
const PLAIN_PATH = /^\/[-A-Za-z0-9._~!$&()*+,;=:@/?%]*$/;
/** Authorities as the URL parser writes them ("Example.COM:80" → "http://example.com"). */
const origins = new Map<string, string>();
/** A server sees few Host values; a client making up many only refills this. */
const MAX_ORIGINS = 64;

/** `http://` and an authority as the URL parser serializes it; throws when it is not valid. */
function originOf(authority: string): string {
  let origin = origins.get(authority);
  if (origin === undefined) {
    origin = new URL(`http://${authority}/`).origin;
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(authority, origin);
  }
  return origin;
}

/**
 * The body's length from Transfer-Encoding and Content-Length (RFC 9112 section 6): chunked
 * (-1) only as the sole coding, never beside Content-Length or in HTTP/1.0; one Content-Length
 * of digits; 413 past `maxBodyBytes` before any of it is read.
 */
function bodyLength(te: string | null, cl: string | null, minor: number, maxBodyBytes: number) {
  if (te !== null) {
    const codings = listElements(te).map((c) => c.toLowerCase());
    if (cl !== null || minor === 0 || codings.at(-1) !== "chunked") {
      throw new Refusal(400, "The body's framing is ambiguous: send chunked alone, last.");
    }
    if (codings.length > 1) throw new Refusal(501, "Only the chunked transfer coding is taken.");
    return -1;
  }
  if (cl === null) return 0;
  if (!/^\d{1,15}$/.test(cl)) throw new Refusal(400, "Content-Length is not one number.");
  const length = Number(cl);
  if (length > maxBodyBytes) {
    throw new Refusal(413, `The body must be at most ${maxBodyBytes} bytes.`);
  }
  return length;
}
