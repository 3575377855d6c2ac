/**
 * lib/http/server/ against raw bytes: RFC 9112's grammar, the request-smuggling patterns of the
 * literature (CL.TE, TE.CL, TE.TE, TERM.EXT, EXT.TERM, 0.CL, CL.0), and issue 25's probes. Each
 * asserts the exact status and what reached the app: nothing behind a refused request runs.
 *
 * Where we deliberately differ from hyper (read in hyper's src/proto/h1/role.rs and decode.rs,
 * and httparse's lib.rs, as of August 2026):
 *
 * | input                                               | hyper                                  | ours |
 * |-----------------------------------------------------|----------------------------------------|------|
 * | bare LF ending a head line (RFC 9112 2.2: MAY)      | taken as a line end                    | 400 at once |
 * | empty lines before the request-line                 | skipped, CRLF or bare LF               | CRLF skipped; a bare LF is 400 |
 * | lower-case or unknown method (`delete`, `FOO`)      | passed to the service                  | 501 |
 * | CONNECT, TRACE                                      | passed to the service                  | 501 |
 * | Host not `uri-host [":" port]`, repeated, or absent | passed to the service                  | 400 (absent: HTTP/1.1 only) |
 * | dot-segments in the path (`/../`, `/%2e%2e/`)       | passed to the service                  | 400 |
 * | `"` `<` `>` `\` `#`, obs-text in the target         | httparse takes any VCHAR and obs-text  | 400 (`[ ] ^ \` { \| }` taken: browsers send them raw) |
 * | Content-Length on two lines, same value             | taken                                  | 400 |
 * | Transfer-Encoding beside Content-Length             | TE wins, CL dropped, closes after      | 400 |
 * | codings before chunked (`gzip, chunked`)            | chunked, the body passed still coded   | 501 |
 * | SP or HTAB after a chunk-size (`5 \r\n`)            | taken                                  | 400: BWS only before `;` |
 * | chunk-ext not by its grammar (`5;`, `5;a=`)         | taken (skipped up to CRLF)             | 400 |
 * | chunked body past the server's body limit           | read on (no server limit)              | 413 |
 * | HTTP/1.0 with `Connection: keep-alive`              | kept alive                             | closed after the answer |
 *
 * The same in both: bare LF in a chunk line is refused (TERM.EXT), Transfer-Encoding in HTTP/1.0
 * and one not ending in chunked are 400, `Content-Length: 5, 5` on one line is 400, and
 * `Expect: 100-continue` from HTTP/1.0 gets no 100.
 */
import assert from "node:assert/strict";
import { exchange, probeServer } from "./raw.ts";

const H = "Host: x\r\n";
const chunked = (body: string, path = "/one") =>
  `POST ${path} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n${body}`;
const SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

interface Probe {
  name: string;
  send: string | string[];
  /** Statuses of the responses, in order. */
  statuses: number[];
  /** Requests the app must have seen, "METHOD path", in order. */
  seen: string[];
  /** The connection is closed after the last response. */
  closed?: boolean;
}

async function run(probes: Probe[], options = {}) {
  const { server, seen, port } = probeServer(options);
  try {
    for (const p of probes) {
      seen.length = 0;
      const got = await exchange(port, p.send);
      const where = `${p.name}: ${JSON.stringify(got.raw.slice(0, 300))}`;
      assert.deepEqual(got.responses.map((r) => r.status), p.statuses, where);
      assert.deepEqual(seen.map((s) => `${s.method} ${s.path}`), p.seen, where);
      if (p.closed !== undefined) assert.equal(got.closed, p.closed, `${where} (closed)`);
      for (const r of got.responses) assert.notEqual(r.reason, "Status", where);
    }
  } finally {
    await server.shutdown();
  }
}

Deno.test('conformance - Host is uri-host [":" port] or the request is a 400, and never picks the route', async () => {
  await run([
    {
      name: "path in Host",
      send: `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8000/api/site?key=pk_a#\r\n\r\n`,
      statuses: [400],
      seen: [],
      closed: true,
    },
    {
      name: "query in Host",
      send: `GET /healthz HTTP/1.1\r\nHost: x/dashboard?\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "backslash in Host",
      send: `GET /healthz HTTP/1.1\r\nHost: x\\api\\admin\\sites\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "userinfo in Host",
      send: `GET / HTTP/1.1\r\nHost: a@b\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    { name: "two ports", send: `GET / HTTP/1.1\r\nHost: x:1:2\r\n\r\n`, statuses: [400], seen: [] },
    {
      name: "space inside Host",
      send: `GET / HTTP/1.1\r\nHost: x y\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "port out of range",
      send: `GET / HTTP/1.1\r\nHost: x:99999\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "Host twice",
      send: `GET / HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    { name: "no Host on HTTP/1.1", send: `GET / HTTP/1.1\r\n\r\n`, statuses: [400], seen: [] },
    {
      name: "no Host on HTTP/1.0",
      send: `GET /ten HTTP/1.0\r\n\r\n`,
      statuses: [200],
      seen: ["GET /ten"],
      closed: true,
    },
    {
      name: "IPv6 literal",
      send: `GET /v6 HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n`,
      statuses: [200],
      seen: ["GET /v6"],
    },
    {
      name: "empty port",
      send: `GET /p HTTP/1.1\r\nHost: example.com:\r\n\r\n`,
      statuses: [200],
      seen: ["GET /p"],
    },
    {
      name: "empty Host",
      send: `GET /e HTTP/1.1\r\nHost:\r\n\r\n`,
      statuses: [200],
      seen: ["GET /e"],
    },
    {
      name: "absolute-form",
      send: `GET http://other.example/p?q=1 HTTP/1.1\r\n${H}\r\n`,
      statuses: [200],
      seen: ["GET /p?q=1"],
    },
    {
      name: "absolute-form with userinfo",
      send: `GET http://u@h/ HTTP/1.1\r\n${H}\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "authority-form for GET",
      send: `GET x:80 HTTP/1.1\r\n${H}\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "asterisk-form for GET",
      send: `GET * HTTP/1.1\r\n${H}\r\n`,
      statuses: [400],
      seen: [],
    },
    { name: "OPTIONS *", send: `OPTIONS * HTTP/1.1\r\n${H}\r\n`, statuses: [204], seen: [] },
    {
      name: "OPTIONS * with a body",
      send: `OPTIONS * HTTP/1.1\r\n${H}Content-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
      statuses: [204],
      seen: [],
      closed: true,
    },
  ]);
  // The app sees the host it was sent, and the path on the wire; URL and Host agree.
  const { server, seen, port } = probeServer();
  await exchange(port, `GET /healthz?a=1 HTTP/1.1\r\nHost: good.example:8000\r\n\r\n`);
  await exchange(port, `GET http://other.example/p HTTP/1.1\r\nHost: ignored.example\r\n\r\n`);
  assert.deepEqual(seen.map((s) => [s.host, s.hostHeader, s.path]), [
    ["good.example:8000", "good.example:8000", "/healthz?a=1"],
    ["other.example", "other.example", "/p"], // absolute-form: Host is ignored (RFC 9112 3.2.2)
  ]);
  await server.shutdown();
});

Deno.test("conformance - request-targets with dot-segments or bytes outside the URI grammar are refused; others reach the app unchanged", async () => {
  const bad = [
    "/../etc/passwd",
    "/a/./b",
    "/a/..",
    "/%2e%2e/admin",
    "/.%2E/x",
    "/a\\..\\b",
    "/a b",
    "/a#b",
    '/a"b',
    "/a<b>",
    "/%zz",
    "/a\x7f",
    "/caf\xe9",
    "\\api\\admin",
  ];
  await run(
    bad.map((t) => ({
      name: `target ${t}`,
      send: `GET ${t} HTTP/1.1\r\n${H}\r\n`,
      statuses: [400],
      seen: [],
    })),
  );
  const good = [
    "/",
    "//double",
    "/a/..%2fb",
    "/%2e%2e%2fb",
    "/...",
    "/a.b/c..d",
    "/q?x=/../y",
    "/a|b?c=[1]^{2}`",
    "/~u/!$&'()*+,;=:@",
    "/%41",
  ];
  await run(
    good.map((t) => ({
      name: `target ${t}`,
      send: `GET ${t} HTTP/1.1\r\n${H}\r\n`,
      statuses: [200],
      seen: [`GET ${t}`],
    })),
  );
});

Deno.test("conformance - methods are case-sensitive tokens: unknown ones are 501, malformed request-lines 400, other majors 505", async () => {
  await run([
    {
      name: "lower-case delete",
      send: `delete /api/admin/sites/s1 HTTP/1.1\r\n${H}\r\n`,
      statuses: [501],
      seen: [],
      closed: true,
    },
    { name: "Get", send: `Get / HTTP/1.1\r\n${H}\r\n`, statuses: [501], seen: [] },
    { name: "unknown FOO", send: `FOO / HTTP/1.1\r\n${H}\r\n`, statuses: [501], seen: [] },
    {
      name: "CONNECT",
      send: `CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n`,
      statuses: [501],
      seen: [],
    },
    { name: "TRACE", send: `TRACE / HTTP/1.1\r\n${H}\r\n`, statuses: [501], seen: [] },
    {
      name: "DELETE",
      send: `DELETE /thing HTTP/1.1\r\n${H}\r\n`,
      statuses: [200],
      seen: ["DELETE /thing"],
    },
    {
      name: "PATCH with a body",
      send: `PATCH /p HTTP/1.1\r\n${H}Content-Length: 2\r\n\r\nhi`,
      statuses: [200],
      seen: ["PATCH /p"],
    },
    { name: "not a token", send: `G@T / HTTP/1.1\r\n${H}\r\n`, statuses: [400], seen: [] },
    { name: "two spaces", send: `GET  / HTTP/1.1\r\n${H}\r\n`, statuses: [400], seen: [] },
    { name: "tab for space", send: `GET\t/ HTTP/1.1\r\n${H}\r\n`, statuses: [400], seen: [] },
    { name: "trailing space", send: `GET / HTTP/1.1 \r\n${H}\r\n`, statuses: [400], seen: [] },
    { name: "lower-case version", send: `GET / http/1.1\r\n${H}\r\n`, statuses: [400], seen: [] },
    { name: "no version", send: `GET /\r\n${H}\r\n`, statuses: [400], seen: [] },
    { name: "HTTP/2.0", send: `GET / HTTP/2.0\r\n${H}\r\n`, statuses: [505], seen: [] },
    {
      name: "HTTP/1.2 is answered as 1.1",
      send: `GET /v HTTP/1.2\r\n${H}\r\n`,
      statuses: [200],
      seen: ["GET /v"],
    },
  ]);
});

Deno.test("conformance - field lines follow the grammar: no space before the colon, no obs-fold, no control characters", async () => {
  await run([
    {
      name: "space before colon",
      send: `GET / HTTP/1.1\r\n${H}X-A : 1\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "obs-fold",
      send: `GET / HTTP/1.1\r\n${H}X-A: 1\r\n 2\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "NUL in a value",
      send: `GET / HTTP/1.1\r\n${H}X-A: a\x00b\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "bare CR in a value",
      send: `GET / HTTP/1.1\r\n${H}X-A: a\rb\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "VT in a value",
      send: `GET / HTTP/1.1\r\n${H}X-A: \x0bb\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    { name: "empty name", send: `GET / HTTP/1.1\r\n${H}: v\r\n\r\n`, statuses: [400], seen: [] },
    {
      name: "name not a token",
      send: `GET / HTTP/1.1\r\n${H}X(A: v\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    { name: "no colon", send: `GET / HTTP/1.1\r\n${H}X-A\r\n\r\n`, statuses: [400], seen: [] },
    {
      name: "obs-text and tabs in a value",
      send: `GET /ok HTTP/1.1\r\n${H}X-A:\tcaf\xe9 \t\r\n\r\n`,
      statuses: [200],
      seen: ["GET /ok"],
    },
    {
      // RFC 9110 5.5: obs-text is opaque, a byte each (not windows-1252, whose 0x80 is a euro)
      name: "obs-text from 0x80 to 0x9f in a value",
      send: `GET /ok HTTP/1.1\r\n${H}X-A: \x80\x9f\r\n\r\n`,
      statuses: [200],
      seen: ["GET /ok"],
    },
    {
      name: "a UTF-8 character in a value, two bytes of obs-text",
      send: `GET /ok HTTP/1.1\r\n${H}X-A: \xc3\xa9\r\n\r\n`,
      statuses: [200],
      seen: ["GET /ok"],
    },
    {
      // Bytes before the method are not a method, whatever a text decoder would make of them.
      name: "a UTF-8 byte order mark before the request-line",
      send: `\xef\xbb\xbfGET /ok HTTP/1.1\r\n${H}\r\n`,
      statuses: [400],
      seen: [],
    },
  ]);
});

Deno.test("conformance - chunked bodies by the grammar: TERM.EXT and EXT.TERM refused, nothing hidden in them runs", async () => {
  await run([
    {
      name: "TERM.EXT: bare LF in a chunk-ext",
      send: chunked(`2;\nxx\r\n47\r\n0\r\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
      closed: true,
    },
    {
      name: "EXT.TERM: bare LF after an ext",
      send: chunked(`2;a\nxx\r\n0\r\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
      closed: true,
    },
    {
      name: "bare LF ending a size",
      send: chunked(`5\nhello\r\n0\r\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "bare LF after data",
      send: chunked(`5\r\nhello\n0\r\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "bare LF ending the last chunk",
      send: chunked(`0\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "space before the size",
      send: chunked(` 5\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "space after the size",
      send: chunked(`5 \r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "tab after the size",
      send: chunked(`5\t\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "NBSP after the size",
      send: chunked(`5\xa0\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "VT before the size",
      send: chunked(`\x0b5\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "FF after the size",
      send: chunked(`5\x0c\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "0x prefix",
      send: chunked(`0x5\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "plus sign",
      send: chunked(`+5\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "empty size",
      send: chunked(`\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "ext without a name",
      send: chunked(`5;\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "ext with an empty value",
      send: chunked(`5;a=\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "unterminated quoted ext",
      send: chunked(`5;a="b\r\nhello\r\n0\r\n\r\n`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "data longer than its size",
      send: chunked(`3\r\nhello\r\n0\r\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
    },
    {
      name: "a size past any body",
      send: chunked(`ffffffffffffffffffff\r\nhello\r\n`),
      statuses: [413],
      seen: ["POST /one"],
    },
    {
      name: "a malformed trailer",
      send: chunked(`0\r\nbad trailer\r\n\r\n${SMUGGLED}`),
      statuses: [400],
      seen: ["POST /one"],
    },
  ]);
  const ok = (name: string, body: string) => ({
    name,
    send: chunked(body),
    statuses: [200],
    seen: ["POST /one"],
  });
  await run([
    ok(
      "extensions with BWS and a quoted value",
      `5 ; a = b;c="q \\" ;"\r\nhello\r\n0;last\r\n\r\n`,
    ),
    ok("leading zeros, upper-case hex", `00000A\r\n0123456789\r\n000\r\n\r\n`),
    ok("trailer fields", `5\r\nhello\r\n0\r\nX-Checksum: abc\r\nX-B: c\r\n\r\n`),
  ]);
});

Deno.test("conformance - CL.TE, TE.CL, TE.TE and Content-Length variants: ambiguous framing is refused before the app runs", async () => {
  const post = (headers: string, rest = `5\r\nhello\r\n0\r\n\r\n${SMUGGLED}`) =>
    `POST /one HTTP/1.1\r\n${H}${headers}\r\n${rest}`;
  const refused = (name: string, headers: string, status = 400) => ({
    name,
    send: post(headers),
    statuses: [status],
    seen: [],
    closed: true,
  });
  await run([
    refused("CL.TE", "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n"),
    refused("TE.CL", "Transfer-Encoding: chunked\r\nContent-Length: 40\r\n"),
    refused("TE.TE: xchunked", "Transfer-Encoding: xchunked\r\n"),
    refused("TE.TE: chunked then identity", "Transfer-Encoding: chunked, identity\r\n"),
    refused("TE.TE: a second TE line", "Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n"),
    refused("TE.TE: space before colon", "Transfer-Encoding : chunked\r\n"),
    refused("TE.TE: VT before the value", "Transfer-Encoding:\x0bchunked\r\n"),
    refused("TE.TE: quoted", 'Transfer-Encoding: "chunked"\r\n'),
    refused("TE.TE: obs-fold", "Transfer-Encoding:\r\n chunked\r\n"),
    refused("TE.TE: empty", "Transfer-Encoding: \r\n"),
    refused("codings before chunked", "Transfer-Encoding: gzip, chunked\r\n", 501),
    refused("chunked twice", "Transfer-Encoding: chunked, chunked\r\n", 501),
    refused("Content-Length repeated", "Content-Length: 5, 5\r\n"),
    refused("Content-Length on two lines", "Content-Length: 5\r\nContent-Length: 5\r\n"),
    refused("Content-Length with a sign", "Content-Length: +5\r\n"),
    refused("Content-Length in hex", "Content-Length: 0x5\r\n"),
    refused("Content-Length negative", "Content-Length: -1\r\n"),
    refused("Content-Length empty", "Content-Length:\r\n"),
    {
      name: "TE in HTTP/1.0",
      send: `POST /one HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
      statuses: [400],
      seen: [],
    },
    {
      name: "upper-case CHUNKED, tab OWS",
      send: post("Transfer-Encoding:\tCHUNKED\r\n", "5\r\nhello\r\n0\r\n\r\n"),
      statuses: [200],
      seen: ["POST /one"],
    },
    {
      name: "Content-Length with OWS",
      send: post("Content-Length: 5 \r\n", "hello"),
      statuses: [200],
      seen: ["POST /one"],
    },
  ]);
});

Deno.test("conformance - 0.CL and CL.0: a body is a body whether or not the app reads it", async () => {
  const { server, seen, port } = probeServer();
  // The app reads the body: the request inside it is data.
  let got = await exchange(
    port,
    `POST /one HTTP/1.1\r\n${H}Content-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
  );
  assert.deepEqual(got.responses.map((r) => r.status), [200]);
  assert.deepEqual(seen.map((s) => s.path), ["/one"]);
  assert.equal(seen[0].body, SMUGGLED);
  // The app does not read it (CL.0): the connection closes rather than read it as a request.
  seen.length = 0;
  got = await exchange(
    port,
    `POST /ignore HTTP/1.1\r\n${H}Content-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
  );
  assert.deepEqual(got.responses.map((r) => r.status), [200]);
  assert.ok(got.closed);
  assert.deepEqual(seen.map((s) => s.path), ["/ignore"]);
  // A GET's body is never read either.
  seen.length = 0;
  got = await exchange(
    port,
    `GET /get HTTP/1.1\r\n${H}Content-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
  );
  assert.deepEqual(got.responses.map((r) => r.status), [200]);
  assert.ok(got.closed);
  assert.deepEqual(seen.map((s) => s.path), ["/get"]);
  await server.shutdown();
});

Deno.test("conformance - empty lines before a request are skipped wherever they arrive; a bare LF is answered at once", async () => {
  await run([
    {
      name: "CRLF in the request's segment",
      send: `\r\nGET /a HTTP/1.1\r\n${H}\r\n`,
      statuses: [200],
      seen: ["GET /a"],
    },
    {
      name: "CRLFs in their own segments",
      send: ["\r\n", "\r\n\r\n", `GET /a HTTP/1.1\r\n${H}\r\n`],
      statuses: [200],
      seen: ["GET /a"],
    },
    {
      name: "CR and LF split across segments",
      send: ["\r", `\nGET /a HTTP/1.1\r\n${H}\r\n`],
      statuses: [200],
      seen: ["GET /a"],
    },
    {
      name: "CRLF after a pipelined POST",
      send: `POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabc\r\nGET /b HTTP/1.1\r\n${H}\r\n`,
      statuses: [200, 200],
      seen: ["POST /a", "GET /b"],
    },
    {
      name: "CRLF after a chunked body",
      send: chunked(`3\r\nabc\r\n0\r\n\r\n\r\n\r\nGET /b HTTP/1.1\r\n${H}\r\n`),
      statuses: [200, 200],
      seen: ["POST /one", "GET /b"],
    },
    { name: "a leading bare LF", send: `\nGET /a HTTP/1.1\r\n${H}\r\n`, statuses: [400], seen: [] },
  ]);
  const { server, seen, port } = probeServer();
  const got = await exchange(port, "GET /lf HTTP/1.1\nHost: x\n\n", { quietMs: 3000 });
  assert.deepEqual(got.responses.map((r) => r.status), [400]);
  assert.ok(got.closed && got.ms < 1000, `answered in ${got.ms.toFixed(0)} ms`);
  assert.equal(seen.length, 0);
  await server.shutdown();
});

Deno.test("conformance - pipelined requests are answered in order, HEAD without a body, Connection read as a token list", async () => {
  await run([
    {
      name: "order, a slow one first",
      send:
        `GET /slow HTTP/1.1\r\n${H}\r\nHEAD /h HTTP/1.1\r\n${H}\r\nPOST /p HTTP/1.1\r\n${H}Content-Length: 2\r\n\r\nhiGET /last HTTP/1.1\r\n${H}\r\n`,
      statuses: [200, 200, 200, 200],
      seen: ["GET /slow", "HEAD /h", "POST /p", "GET /last"],
      closed: false,
    },
    {
      name: "x-close-y is not close",
      send: `GET /a HTTP/1.1\r\n${H}Connection: x-close-y\r\n\r\nGET /b HTTP/1.1\r\n${H}\r\n`,
      statuses: [200, 200],
      seen: ["GET /a", "GET /b"],
      closed: false,
    },
    {
      name: "close in a list",
      send:
        `GET /a HTTP/1.1\r\n${H}Connection: keep-alive, CLOSE\r\n\r\nGET /b HTTP/1.1\r\n${H}\r\n`,
      statuses: [200],
      seen: ["GET /a"],
      closed: true,
    },
    {
      name: "HTTP/1.0 closes",
      send: `GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.0\r\n\r\n`,
      statuses: [200],
      seen: ["GET /a"],
      closed: true,
    },
  ]);
  const { server, port } = probeServer();
  const got = await exchange(
    port,
    `GET /slow HTTP/1.1\r\n${H}\r\nHEAD /h HTTP/1.1\r\n${H}\r\nGET /z HTTP/1.1\r\n${H}\r\n`,
  );
  assert.deepEqual(got.responses.map((r) => r.body), ["GET /slow ", "", "GET /z "]);
  await server.shutdown();
});

Deno.test("conformance - every status goes out with its standard reason phrase", async () => {
  const { server, port } = probeServer();
  for (
    const [status, reason] of [
      [301, "Moved Permanently"],
      [303, "See Other"],
      [401, "Unauthorized"],
      [403, "Forbidden"],
      [405, "Method Not Allowed"],
      [409, "Conflict"],
      [415, "Unsupported Media Type"],
      [429, "Too Many Requests"],
      [422, "Unprocessable Content"],
      [503, "Service Unavailable"],
    ] as const
  ) {
    const got = await exchange(port, `GET /status/${status} HTTP/1.1\r\n${H}\r\n`);
    assert.equal(got.raw.split("\r\n")[0], `HTTP/1.1 ${status} ${reason}`);
  }
  // A code with no standard reason gets an empty one, as RFC 9112 section 4 allows.
  const odd = await exchange(port, `GET /status/299 HTTP/1.1\r\n${H}\r\n`);
  assert.equal(odd.raw.split("\r\n")[0], "HTTP/1.1 299 ");
  await server.shutdown();
});

Deno.test("conformance - 100-continue goes to HTTP/1.1 clients only, and only for a body the app will read", async () => {
  const { server, seen, port } = probeServer();
  const ask = (version: string) =>
    `POST /c ${version}\r\n${H}Content-Length: 3\r\nExpect: 100-continue\r\n\r\n`;
  const eleven = await exchange(port, [ask("HTTP/1.1"), "abc"], { gapMs: 200 });
  assert.deepEqual(eleven.responses.map((r) => r.status), [100, 200]);
  const ten = await exchange(port, [ask("HTTP/1.0"), "abc"], { gapMs: 200 });
  assert.deepEqual(ten.responses.map((r) => r.status), [200]);
  assert.ok(!ten.raw.includes("100 Continue"));
  assert.deepEqual(seen.map((s) => s.body), ["abc", "abc"]);
  await server.shutdown();
});

Deno.test("conformance - size limits: 414 for a long request-line, 431 for a large head, 413 for a large body of either framing", async () => {
  await run([
    {
      name: "long request-line",
      send: `GET /${"a".repeat(3000)} HTTP/1.1\r\n${H}\r\n`,
      statuses: [414],
      seen: [],
      closed: true,
    },
    {
      name: "request-line past the head limit",
      send: `GET /${"a".repeat(5000)}`,
      statuses: [414],
      seen: [],
    },
    {
      name: "large head",
      send: `GET / HTTP/1.1\r\n${H}X-Big: ${"a".repeat(5000)}\r\n\r\n`,
      statuses: [431],
      seen: [],
    },
    {
      name: "Content-Length past the limit",
      send: `POST /p HTTP/1.1\r\n${H}Content-Length: 5000\r\n\r\n`,
      statuses: [413],
      seen: [],
    },
    {
      name: "chunks past the limit",
      send: chunked(`3e8\r\n${"a".repeat(1000)}\r\n3e8\r\n${"a".repeat(1000)}\r\n0\r\n\r\n`),
      statuses: [413],
      seen: ["POST /one"],
      closed: true,
    },
    {
      name: "within the limits",
      send: `GET /${"a".repeat(1000)} HTTP/1.1\r\n${H}\r\n`,
      statuses: [200],
      seen: [`GET /${"a".repeat(1000)}`],
    },
  ], { maxRequestLineBytes: 2048, maxHeaderBytes: 4096, maxBodyBytes: 1500 });
});

Deno.test("conformance - deadlines: an unfinished head is closed, an unfinished body answered 408", async () => {
  const { server, seen, port } = probeServer({ headerTimeoutMs: 200, bodyTimeoutMs: 200 });
  const head = await exchange(port, `GET / HTTP/1.1\r\n${H}X-Slow: `, { quietMs: 2000 });
  assert.ok(head.closed && head.ms < 1500, `closed after ${head.ms.toFixed(0)} ms`);
  assert.equal(seen.length, 0);
  const body = await exchange(port, `POST /b HTTP/1.1\r\n${H}Content-Length: 10\r\n\r\nabc`, {
    quietMs: 2000,
  });
  assert.deepEqual(body.responses.map((r) => r.status), [408]);
  assert.ok(body.closed);
  const chunks = await exchange(port, chunked("5\r\nhel"), { quietMs: 2000 });
  assert.deepEqual(chunks.responses.map((r) => r.status), [408]);
  await server.shutdown();
});
