/** Responses on the wire: the status-line with its standard reason, framing, HEAD and 1.0 rules. */
import { CRLF, sendAll } from "../wire.ts";
import { systemClock } from "../../clock.ts";
import type { Slot } from "./conns.ts";

/** Reason phrases of RFC 9110 section 15 (and RFC 6585's 428, 429, 431, 511; RFC 7725's 451). */
export const REASONS: Record<number, string> = {
  100: "Continue",
  101: "Switching Protocols",
  200: "OK",
  201: "Created",
  202: "Accepted",
  203: "Non-Authoritative Information",
  204: "No Content",
  205: "Reset Content",
  206: "Partial Content",
  300: "Multiple Choices",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  305: "Use Proxy",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  417: "Expectation Failed",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  511: "Network Authentication Required",
};

/** The status-line; a code without a standard reason gets an empty one (RFC 9112 section 4). */
export const statusLine = (status: number) => `HTTP/1.1 ${status} ${REASONS[status] ?? ""}`;

const encoder = new TextEncoder();

/** A client that stops reading for this long is dropped (its writes never finish otherwise). */
const WRITE_TIMEOUT_MS = 30_000;

/** Writes all of `bytes`; the slot's deadline covers the write, so a stalled reader is dropped. */
export async function writeAll(slot: Slot, bytes: Uint8Array) {
  slot.deadline = systemClock() + WRITE_TIMEOUT_MS;
  try {
    await sendAll(slot.conn, bytes);
  } finally {
    slot.deadline = null;
  }
}

/** A whole response the server makes itself (a refusal), closing the connection. */
export function closingResponse(
  status: number,
  body: string,
  headers: Record<string, string>,
): Uint8Array {
  const bytes = encoder.encode(body);
  const lines = [statusLine(status), `content-length: ${bytes.byteLength}`, "connection: close"];
  for (const name in headers) lines.push(`${name}: ${headers[name]}`);
  return join(encoder.encode(lines.join("\r\n") + "\r\n\r\n"), bytes);
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

/**
 * Bodies of responses made from bytes already in memory (`respond` in middleware.ts): sent
 * as they are, not read back out of the Response through a stream.
 */
export const knownBodies = new WeakMap<Response, Uint8Array>();

/** The Date header's value, made once a second. */
function httpDate(): string {
  const second = Math.floor(systemClock() / 1000);
  if (second !== lastDate.second) {
    lastDate = { second, text: new Date(second * 1000).toUTCString() };
  }
  return lastDate.text;
}
let lastDate = { second: 0, text: "" };

const NO_BODY = new Set([204, 304]);
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);
/** A connection keeps a buffer of up to this size to put its responses together in. */
const KEPT_OUT_BYTES = 64 * 1024;

/**
 * `head` (text, UTF-8 encoded as `encoder.encode` would) followed by `body`, in the slot's own
 * buffer when they fit in KEPT_OUT_BYTES: one write, and no allocation per response. The
 * buffer is free again once the write is awaited, before the connection's next exchange.
 */
function compose(slot: Slot, head: string, body: Uint8Array | null): Uint8Array {
  const size = head.length * 3 + (body?.byteLength ?? 0); // UTF-8 takes at most 3 bytes a unit
  if (size > KEPT_OUT_BYTES) {
    const bytes = encoder.encode(head);
    return body ? join(bytes, body) : bytes;
  }
  if (!slot.out || slot.out.byteLength < size) {
    slot.out = new Uint8Array(Math.min(KEPT_OUT_BYTES, Math.max(size, 16 * 1024)));
  }
  const { written } = encoder.encodeInto(head, slot.out);
  if (body) slot.out.set(body, written);
  return slot.out.subarray(0, written + (body?.byteLength ?? 0));
}

/** The Date header when the app set none, and `connection: close` when the connection ends. */
const ending = (dated: boolean, keepAlive: boolean) =>
  (dated ? "" : `date: ${httpDate()}\r\n`) + (keepAlive ? "" : "connection: close\r\n");

/**
 * A whole answer the app made without a Response (the server's `early` hook): a status that
 * has a body, headers as a Headers object would take them (not Set-Cookie), and the body.
 */
export interface EarlyAnswer {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * Writes an early answer to a GET byte for byte as writeResponse writes the same Response:
 * names in lower case and sorted, repeated ones joined by ", " (the Fetch standard's "sort and
 * combine", which Headers iterates in).
 */
export async function writeEarly(slot: Slot, a: EarlyAnswer, keepAlive: boolean) {
  // Names in lower case, in order by an insertion sort that keeps repeated names in the order
  // sent: a handful of headers, sorted without an array per header.
  const names: string[] = [], values: string[] = [];
  for (const [k, v] of a.headers) {
    const name = k.toLowerCase();
    let i = names.length;
    for (; i > 0 && names[i - 1] > name; i--) {
      names[i] = names[i - 1];
      values[i] = values[i - 1];
    }
    names[i] = name;
    values[i] = v;
  }
  let text = statusLine(a.status) + "\r\n", dated = false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    let value = values[i];
    while (i + 1 < names.length && names[i + 1] === name) value += ", " + values[++i];
    if (name === "date") dated = true;
    if (!HOP_BY_HOP.has(name)) text += name + ": " + value + "\r\n";
  }
  text += ending(dated, keepAlive) + "content-length: " + a.body.byteLength + "\r\n\r\n";
  await writeAll(slot, compose(slot, text, a.body));
}

/** Writes a response: its declared length, or chunked; a HEAD's or 204/304's without a body. */
export async function writeResponse(
  slot: Slot,
  res: Response,
  head: boolean,
  keepAlive: boolean,
  http10: boolean,
) {
  let text = statusLine(res.status) + "\r\n";
  res.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k)) text += `${k}: ${v}\r\n`;
  });
  text += ending(res.headers.has("date"), keepAlive);
  const declared = res.headers.get("content-length");
  const bodyless = head || NO_BODY.has(res.status) || res.status < 200;
  const fixed = declared !== null && /^\d+$/.test(declared) ? Number(declared) : null;
  const known = knownBodies.get(res);
  if (bodyless || (!known && !res.body)) {
    // A HEAD answer says how long the GET's body would be, when that is known.
    const length = head ? known?.byteLength ?? fixed : bodyless ? null : 0;
    if (length !== null && !NO_BODY.has(res.status)) text += `content-length: ${length}\r\n`;
    await res.body?.cancel().catch(() => {});
    await writeAll(slot, compose(slot, text + "\r\n", null));
    return;
  }
  if (known || !/^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
    // Anything but an event stream is read whole and sent in one write, head included.
    const body = known ?? new Uint8Array(await res.arrayBuffer());
    if (fixed !== null && body.byteLength !== fixed) throw new Error("body length mismatch");
    text += `content-length: ${body.byteLength}\r\n\r\n`;
    await writeAll(slot, compose(slot, text, body));
    return;
  }
  // An event stream goes out as it is made: chunked, or until the close for HTTP/1.0.
  if (!http10) text += "transfer-encoding: chunked\r\n";
  await writeAll(slot, encoder.encode(text + "\r\n"));
  for await (const part of res.body!) {
    if (part.byteLength === 0) continue;
    if (http10) {
      await writeAll(slot, part);
      continue;
    }
    const size = encoder.encode(part.byteLength.toString(16) + "\r\n");
    await writeAll(slot, join(join(size, part), CRLF));
  }
  if (!http10) await writeAll(slot, encoder.encode("0\r\n\r\n"));
}
