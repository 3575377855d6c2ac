/** The one browser client, run in Deno: its SSE parser on awkward chunkings, its error class. */
import assert from "node:assert/strict";
import { sseEvents } from "../../widget/client/sse.ts";
import { ApiFailure, bodyJson } from "../../widget/client/http.ts";
import { friendly } from "../../widget/client/strings.ts";

/** A body that delivers `text` in the given pieces (split anywhere, even inside a CRLF). */
function body(pieces: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of pieces) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

async function collect(pieces: string[]) {
  const out = [];
  for await (const e of sseEvents(body(pieces))) out.push(e);
  return out;
}

Deno.test("client - SSE events split inside a CRLF, a multi-byte character or a field come out whole", async () => {
  const text =
    'event: meta\r\ndata: {"a":1}\r\n\r\n: ping\r\n\r\nevent: delta\r\ndata: {"text":"Kaffeebohnen — frisch"}\r\n\r\n';
  const bytes = new TextEncoder().encode(text);
  const expected = [
    { event: "meta", data: '{"a":1}' },
    { event: "delta", data: '{"text":"Kaffeebohnen — frisch"}' },
  ];
  // Every split point of the byte stream, the "\r" | "\n" of each CRLF included.
  for (let at = 1; at < bytes.length; at++) {
    const dec = new TextDecoder("latin1");
    const pieces = [bytes.slice(0, at), bytes.slice(at)].map((b) => dec.decode(b));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, at));
        c.enqueue(bytes.slice(at));
        c.close();
      },
    });
    const got = [];
    for await (const e of sseEvents(stream)) got.push(e);
    assert.deepEqual(got, expected, `split at byte ${at} (${JSON.stringify(pieces[0].slice(-3))})`);
  }
});

Deno.test("client - an unnamed event is a message, and an event cut off by the stream's end is dropped", async () => {
  assert.deepEqual(await collect(["data: one\n", "data: two\n\n", "data: cut"]), [
    { event: "message", data: "one\ntwo" },
  ]);
});

Deno.test("client - a failed response becomes one ApiFailure with the envelope's code and message", async () => {
  const res = new Response(
    JSON.stringify({
      error: { code: "SEARCH_RATE_LIMIT_EXCEEDED", status: 429, message: "Busy." },
    }),
    { status: 429 },
  );
  const err = await bodyJson(res).catch((e) => e);
  assert.ok(err instanceof ApiFailure);
  assert.equal(err.status, 429);
  assert.equal(err.code, "SEARCH_RATE_LIMIT_EXCEEDED");
  assert.equal(err.message, "Busy.");
  assert.equal(friendly(err), "Search is busy right now. Please try again in a minute.");
  const html: ApiFailure = await bodyJson<never>(new Response("<h1>502</h1>", { status: 502 }))
    .catch((e) => e);
  assert.equal(html.code, "HTTP_502");
  assert.equal(await bodyJson(new Response(null, { status: 204 })), null);
});
