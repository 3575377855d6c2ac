/**
 * What a crawled server may answer, drawn at random (seeded): odd status lines, every framing
 * of a body right and wrong (Content-Length as digits, fractions, signs, lists; chunked sizes
 * broken, missing or huge; no length), codings whole, cut short or unknown, heads too large,
 * bytes trickled or held open. The crawler's fetcher (in a Worker, so a stall cannot hold the
 * test) must settle every fetch within its deadlines while its event loop keeps turning, keep
 * a well-framed body exactly, and refuse a malformed one rather than guess (RFC 9112 section 6).
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { pick, seeded } from "../../fixtures/seeded.ts";
import type { FetchOrder } from "../../fixtures/fetch_worker.ts";

const CASES = 240;
const HEADERS_MS = 300;
const BODY_MS = 500;
const MAX_BYTES = 3072;
/** Longest a fetch may take: both deadlines, and room for a loaded machine. */
const SETTLED_MS = HEADERS_MS + BODY_MS + 1500;

const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s);
const join = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.byteLength) - p.byteLength);
  return out;
};

/** What the fetch must give: the body kept (of a 2xx; a non-2xx keeps none), or a refusal. */
type Expected =
  | { ok: true; status: number; body: Uint8Array }
  | { ok: false; reasons: Reason[] };
type Reason = "fetch_error" | "timeout" | "too_large";

interface Case {
  /** The answer's bytes in the pieces they are written in, a few milliseconds apart. */
  pieces: Uint8Array[];
  /** Whether the server closes the socket after the answer or holds it open. */
  close: boolean;
  expected: Expected;
  what: string;
}

const FRAMINGS = [
  "length",
  "length",
  "length-short",
  "length-long",
  "length-list",
  "length-bad",
  "chunked",
  "chunked",
  "chunked-bad",
  "chunked-unended",
  "coded-transfer",
  "close",
] as const;

/** Content-Length values that are not one number of digits (n: fewer than the bytes sent). */
const badLengths = (n: number) => [
  `${n}.5`,
  `-${n}`,
  `+${n}`,
  `0x${n.toString(16)}`,
  `${n}e0`,
  "",
  "Infinity",
  `${n}, ${n + 1}`,
  "9".repeat(20),
];

/** Chunk-size lines (and a chunk longer than its size) that break chunked framing. */
const BAD_CHUNKS = ["zz\r\n", "1234567890abc\r\n", "-1\r\n", "\r\n", "5\r\nabcdefgh\r\n"];

/** Heads that are not an HTTP/1.x response head, or never end. */
const BROKEN_HEADS: Record<string, string> = {
  "not HTTP": "hello\r\n\r\n",
  "HTTP/2": "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
  "a head past 64 KB": `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`,
  "no blank line": "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n",
  "nothing": "",
};

/** One answer drawn with `rand`. */
function drawCase(rand: () => number): Case {
  const content = bytes(
    Array.from({ length: Math.floor(rand() * 3000) }, () => pick(rand, [..."ab c\nдé茶<>"]))
      .join(""),
  );
  const coding = pick(rand, ["identity", "identity", "gzip", "gzip-cut", "unknown"]);
  const gzipped = new Uint8Array(gzipSync(content));
  const wire = coding === "gzip"
    ? gzipped
    : coding === "gzip-cut"
    ? gzipped.subarray(0, 12)
    : content;
  const framing = pick(rand, FRAMINGS);
  const close = rand() < 0.7;
  const hex = (n: number) => n.toString(16) + (rand() < 0.2 ? ";ext=1" : "");

  // The head's fields past the status line, the body's bytes, and what is kept of a 2xx.
  let head = coding === "identity"
    ? ""
    : `Content-Encoding: ${coding === "unknown" ? "x-mystery" : "gzip"}\r\n`;
  let body = wire, kept = content;
  // A failure the head already shows (whatever the status), or one met reading the body.
  // A framing that never ends is met before a coding cut short (which shows only at the end).
  let headFails = coding === "unknown", bodyFails: Reason | null = null;
  // Bytes declared beyond the cap are refused before they are read.
  let declared = 0;
  switch (framing) {
    case "length":
    case "length-list":
      head += `Content-Length: ${wire.byteLength}${
        framing === "length-list" ? `, ${wire.byteLength}` : ""
      }\r\n`;
      declared = wire.byteLength;
      break;
    case "length-short": { // fewer than the bytes sent: the rest is not the body
      const n = Math.floor(wire.byteLength / 2);
      head += `Content-Length: ${n}\r\n`;
      declared = n;
      if (coding === "identity") kept = wire.subarray(0, n);
      else bodyFails ??= "fetch_error"; // a coded body cut short
      break;
    }
    case "length-long": // more than are sent: cut short at the close, or never ended
      declared = wire.byteLength + 1 + Math.floor(rand() * 100);
      head += `Content-Length: ${declared}\r\n`;
      bodyFails ??= close ? "fetch_error" : "timeout";
      break;
    case "length-bad":
      head += `Content-Length: ${pick(rand, badLengths(Math.floor(wire.byteLength / 2)))}\r\n`;
      headFails = true;
      break;
    case "chunked":
    case "chunked-bad":
    case "chunked-unended":
    case "coded-transfer": {
      const coded = framing === "coded-transfer"; // a transfer coding not asked for
      head += `Transfer-Encoding: ${
        coded ? pick(rand, ["gzip, chunked", "gzip"]) : pick(rand, ["chunked", "Chunked"])
      }\r\n`;
      if (rand() < 0.3) head += `Content-Length: ${wire.byteLength + 7}\r\n`; // chunked wins
      const parts: Uint8Array[] = [];
      for (let at = 0; at < wire.byteLength;) {
        const part = wire.subarray(at, at + 1 + Math.floor(rand() * 700));
        parts.push(bytes(`${hex(part.byteLength)}\r\n`), part, bytes("\r\n"));
        at += part.byteLength;
      }
      if (framing === "chunked-bad") {
        parts.splice(Math.floor(rand() * (parts.length + 1)), 0, bytes(pick(rand, BAD_CHUNKS)));
        bodyFails ??= "fetch_error";
      }
      if (framing === "chunked-unended") bodyFails ??= close ? "fetch_error" : "timeout";
      else parts.push(bytes("0\r\n\r\n"));
      if (coded) headFails = true;
      body = join(parts);
      break;
    }
    case "close": // no length: the body ends at the close
      if (!close) bodyFails ??= "timeout";
      break;
  }
  if (coding === "gzip-cut") bodyFails ??= "fetch_error";

  const status = pick(rand, [200, 200, 200, 203, 404, 500]);
  const statusLine = pick(rand, [
    `HTTP/1.1 ${status} Fine`,
    `HTTP/1.0 ${status} Fine`,
    `HTTP/1.1 ${status}`,
  ]);
  const interim = rand() < 0.1 ? "HTTP/1.1 100 Continue\r\n\r\n" : "";
  let answer = join([
    bytes(`${interim}${statusLine}\r\nContent-Type: text/html\r\n${head}\r\n`),
    body,
  ]);
  let what = `${statusLine}, ${framing}, ${coding}, ${close ? "closed" : "held"}`;

  let expected: Expected;
  if (headFails) expected = { ok: false, reasons: ["fetch_error"] };
  else if (status >= 300) expected = { ok: true, status, body: new Uint8Array() }; // not read
  else if (coding === "identity" && declared > MAX_BYTES) {
    expected = { ok: false, reasons: ["too_large"] };
  } else if (bodyFails) {
    // A body past the cap may be refused for that before its fault is reached.
    const large = kept.byteLength > MAX_BYTES || declared > MAX_BYTES;
    expected = { ok: false, reasons: large ? [bodyFails, "too_large"] : [bodyFails] };
  } else if (kept.byteLength > MAX_BYTES) expected = { ok: false, reasons: ["too_large"] };
  else expected = { ok: true, status, body: kept };

  if (rand() < 0.12) {
    const broken = pick(rand, Object.keys(BROKEN_HEADS));
    what += ` (${broken})`;
    answer = bytes(BROKEN_HEADS[broken]);
    const waits = !close && (broken === "no blank line" || broken === "nothing");
    expected = { ok: false, reasons: [waits ? "timeout" : "fetch_error"] };
  }

  // Written in one to four pieces.
  const pieces: Uint8Array[] = [];
  const cuts = Array.from(
    { length: Math.floor(rand() * 4) },
    () => Math.floor(rand() * answer.byteLength),
  ).sort((a, b) => a - b);
  let from = 0;
  for (const cut of [...cuts, answer.byteLength]) {
    pieces.push(answer.subarray(from, cut));
    from = cut;
  }
  return { pieces, close, expected, what };
}

/** A server on 127.0.0.1 that answers `/case/<n>` with case n, and holds sockets it should. */
function hostileServer(cases: Case[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      (async () => {
        let head = "";
        const buf = new Uint8Array(4096);
        while (!head.includes("\r\n\r\n")) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) return conn.close();
          head += new TextDecoder().decode(buf.subarray(0, n));
        }
        const c = cases[Number(/^GET \/case\/(\d+) /.exec(head)?.[1])];
        try {
          for (const piece of c.pieces) {
            for (let at = 0; at < piece.byteLength;) at += await conn.write(piece.subarray(at));
            await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 8)));
          }
        } catch { /* the fetcher gave up first */ }
        if (c.close) conn.close();
        else held.push(conn);
      })();
    }
  })();
  return {
    origin: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    async close() {
      listener.close();
      await serving.catch(() => {});
      for (const c of held) {
        try {
          c.close();
        } catch { /* the fetcher closed it */ }
      }
    },
  };
}

Deno.test("crawl net - whatever a server answers, a fetch settles within its deadlines, keeps a well-framed body and refuses a malformed one", async () => {
  const rand = seeded(20261206);
  const cases = Array.from({ length: CASES }, () => drawCase(rand));
  const server = hostileServer(cases);
  const worker = new Worker(new URL("../../fixtures/fetch_worker.ts", import.meta.url), {
    type: "module",
  });
  const results = new Map<number, { ms: number; result: Record<string, unknown> }>();
  try {
    // Eight in flight at once; each report must come within SETTLED_MS of the last one.
    let next = 0;
    const send = () => {
      const order: FetchOrder = {
        id: next,
        url: `${server.origin}/case/${next}`,
        init: {
          headersTimeoutMs: HEADERS_MS,
          bodyTimeoutMs: BODY_MS,
          maxBytes: MAX_BYTES,
          maxRedirects: 0,
        },
      };
      next++;
      worker.postMessage(order);
    };
    for (let i = 0; i < 8; i++) send();
    await new Promise<void>((resolve, reject) => {
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          const waiting = [...Array(next).keys()].filter((i) => !results.has(i));
          reject(
            new Error(
              `no fetch settled in ${SETTLED_MS} ms: ${
                waiting.map((i) => cases[i].what).join("; ")
              }`,
            ),
          );
        }, SETTLED_MS);
      };
      arm();
      worker.onmessage = ({ data }) => {
        results.set(data.id, data);
        arm();
        if (next < CASES) send();
        if (results.size === CASES) {
          clearTimeout(watchdog);
          resolve();
        }
      };
    });
  } finally {
    worker.terminate();
    await server.close();
  }

  const kinds = new Map<string, number>();
  for (const [id, { ms, result }] of results) {
    const c = cases[id];
    const label = `case ${id} (${c.what})`;
    assert.ok(ms < SETTLED_MS, `${label} took ${ms.toFixed(0)} ms`);
    assert.ok(!("threw" in result), `${label} threw: ${result.threw}`);
    if (c.expected.ok) {
      assert.equal(result.ok, true, `${label}: ${JSON.stringify(result)}`);
      assert.equal(result.status, c.expected.status, label);
      assert.deepEqual(new Uint8Array(result.body as number[]), c.expected.body, label);
    } else {
      assert.equal(
        result.ok,
        false,
        `${label} was kept: ${
          JSON.stringify(
            { ...result, body: (result.body as number[] | undefined)?.length },
            null,
            0,
          )
        } in ${ms}`,
      );
      assert.ok(
        c.expected.reasons.includes(result.reason as Reason),
        `${label}: ${result.reason}, not ${c.expected.reasons}`,
      );
    }
    const kind = c.expected.ok ? "kept" : String(result.reason);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  // The draw reaches every outcome, not only the easy ones.
  for (const kind of ["kept", "fetch_error", "timeout", "too_large"]) {
    assert.ok((kinds.get(kind) ?? 0) >= 3, `${kind}: ${kinds.get(kind) ?? 0} cases`);
  }
});
