import assert from "node:assert/strict";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { encodeEvent, pingComment, SSE_HEADERS, sseStream } from "../../lib/answers/sse.ts";

interface Parsed {
  events: EventSourceMessage[];
  comments: string[];
}

/** Reads a whole stream and parses it, feeding the parser one byte at a time. */
async function parseByteByByte(stream: ReadableStream<Uint8Array>): Promise<Parsed> {
  const out: Parsed = { events: [], comments: [] };
  const parser = createParser({
    onEvent: (e) => out.events.push(e),
    onComment: (c) => out.comments.push(c),
  });
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    for (const byte of chunk) parser.feed(decoder.decode(new Uint8Array([byte]), { stream: true }));
  }
  parser.feed(decoder.decode());
  return out;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("sse - encodes an event as one event line and one JSON data line", () => {
  assert.equal(encodeEvent("delta", { text: "a\nb" }), 'event: delta\ndata: {"text":"a\\nb"}\n\n');
  assert.equal(encodeEvent("done", undefined), "event: done\ndata: null\n\n");
  assert.equal(encodeEvent("x\ny", 1), "event: xy\ndata: 1\n\n");
  assert.equal(pingComment(), ": ping\n\n");
});

Deno.test("sse - headers ask proxies not to buffer and leave out Connection", () => {
  assert.equal(SSE_HEADERS["Content-Type"], "text/event-stream; charset=utf-8");
  assert.equal(SSE_HEADERS["Cache-Control"], "no-cache");
  assert.equal(SSE_HEADERS["X-Accel-Buffering"], "no");
  assert.ok(!Object.keys(SSE_HEADERS).some((h) => h.toLowerCase() === "connection"));
});

Deno.test("sse - payloads with newlines, data: text and multi-byte characters arrive intact", async () => {
  const payloads = [
    { text: "Pricing starts " },
    { text: "line one\nline two\r\nline three\rend" },
    { text: "data: fake\n\nevent: done\ndata: {}\n\n" },
    { text: ": not a comment\nid: 7\nretry: 1" },
    { text: "héllo wörld — 日本語 🌍👩‍👩‍👧 \u2028\u2029 tab\t" },
    { nested: { list: [1, "two", null], empty: "" } },
    "just a string",
    null,
  ];
  const stream = sseStream(async (send) => {
    send("meta", { conversationId: "cv_1", sources: [] });
    for (const p of payloads) {
      send("delta", p);
      await delay(0);
    }
    send("done", { answer: "ok", truncated: false });
  });
  const { events } = await parseByteByByte(stream);
  assert.deepEqual(events.map((e) => e.event), [
    "meta",
    ...payloads.map(() => "delta"),
    "done",
  ]);
  assert.deepEqual(events.slice(1, -1).map((e) => JSON.parse(e.data)), payloads);
  assert.deepEqual(JSON.parse(events.at(-1)!.data), { answer: "ok", truncated: false });
});

Deno.test("sse - pings while the producer is silent, and not while it is busy", async () => {
  const stream = sseStream(async (send) => {
    for (let i = 0; i < 12; i++) { // busy: an event every 5 ms, well inside pingMs
      send("delta", { i });
      await delay(5);
    }
    await delay(190); // silent: several pings
    send("done", {});
  }, { pingMs: 50 });
  const seen: string[] = [];
  const parser = createParser({
    onEvent: (e) => seen.push(e.event ?? "message"),
    onComment: (c) => seen.push(`:${c}`),
  });
  const decoder = new TextDecoder();
  for await (const chunk of stream) parser.feed(decoder.decode(chunk, { stream: true }));
  const firstPing = seen.indexOf(":ping");
  assert.ok(firstPing > 0, "a ping was sent");
  assert.deepEqual(seen.slice(0, 12), Array(12).fill("delta"), "no ping while busy");
  const pings = seen.filter((s) => s === ":ping").length;
  assert.ok(pings >= 2 && pings <= 4, `about one ping per 50 ms of silence, got ${pings}`);
  assert.equal(seen.at(-1), "done");
});

Deno.test("sse - cancelling the stream aborts the signal given to run", async () => {
  let resolveSeen: (s: AbortSignal) => void;
  const seenSignal = new Promise<AbortSignal>((r) => resolveSeen = r);
  let sentAfterCancel = false;
  const finished = Promise.withResolvers<void>();
  const stream = sseStream(async (send, signal) => {
    resolveSeen(signal);
    send("meta", {});
    await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
    send("delta", { text: "too late" }); // must be a harmless no-op
    sentAfterCancel = true;
    finished.resolve();
  }, { pingMs: 20 });
  const reader = stream.getReader();
  const first = await reader.read();
  assert.ok(first.value && new TextDecoder().decode(first.value).startsWith("event: meta"));
  const signal = await seenSignal;
  assert.equal(signal.aborted, false);
  await reader.cancel();
  assert.equal(signal.aborted, true);
  assert.equal((signal.reason as DOMException).name, "AbortError");
  await finished.promise;
  assert.ok(sentAfterCancel);
  await delay(50); // no ping timer outlives the cancel (the sanitizer would complain)
});

Deno.test("sse - the stream closes when run resolves, and also when it throws", async () => {
  const ok = await parseByteByByte(sseStream(async (send) => {
    await delay(1);
    send("done", { answer: "a" });
  }));
  assert.deepEqual(ok.events.map((e) => e.event), ["done"]);

  const original = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    const broken = await parseByteByByte(sseStream(async (send) => {
      send("meta", {});
      await delay(1);
      throw new Error("caller bug");
    }));
    assert.deepEqual(broken.events.map((e) => e.event), ["meta"]);
    assert.equal(logged.length, 1);
  } finally {
    console.error = original;
  }
});

Deno.test("sse - a client hanging up on a real server aborts the signal", async () => {
  const aborted = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      sseStream(async (send, signal) => {
        send("meta", {});
        await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
        aborted.resolve();
      }, { pingMs: 20 }),
      { headers: SSE_HEADERS },
    ));
  try {
    const client = new AbortController();
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`, { signal: client.signal });
    assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    const reader = res.body!.getReader();
    await reader.read();
    client.abort();
    await reader.cancel().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise((r) => timer = setTimeout(() => r("timeout"), 1000));
    const outcome = await Promise.race([aborted.promise.then(() => "aborted"), timeout]);
    clearTimeout(timer);
    assert.equal(outcome, "aborted");
  } finally {
    await server.shutdown();
  }
});
