/**
 * GET /api/search through the server's `early` hook (app.ts `early`) against the same app
 * behind its whole middleware chain: the same bytes on the wire, headers included, for hits,
 * misses and every refusal, and the same access log line. Only what differs between any two
 * requests is masked: the request id, the Date, and the quota's remaining count and reset time.
 */
import assert from "node:assert/strict";
import { serveHttp } from "../../lib/http/server/mod.ts";
import { exchange } from "./raw.ts";
import { clearOfMinuteEdge } from "../fixtures/minute_edge.ts";
import { searchSites } from "./search_sites.ts";

const mask = (raw: string) =>
  raw.replace(/req_[0-9A-Za-z]+/g, "req_ID")
    .replace(/\r\ndate: [^\r]+/g, "\r\ndate: DATE")
    .replace(/;r=\d+;t=\d+/g, ";r=N;t=N")
    .replace(/retry-after: \d+/g, "retry-after: N")
    .replace(/"retry_after":\d+/g, '"retry_after":N')
    .replace(/Retry in \d+ s/g, "Retry in N s");

async function setup() {
  const { app, early, close, ...sites } = await searchSites("op_early_test");
  const options = { hostname: "127.0.0.1", port: 0 };
  // What reaches the app on the early server: only what the hook leaves to it.
  const reached: string[] = [];
  const fast = serveHttp({ ...options, early }, (req, info) => {
    reached.push(`${req.method} ${new URL(req.url).pathname}`);
    return app.fetch(req, info);
  });
  const full = serveHttp(options, app.fetch);
  return {
    ...sites,
    reached,
    fast: fast.addr.port,
    full: full.addr.port,
    async close() {
      await fast.shutdown();
      await full.shutdown();
      await close();
    },
  };
}

/** The access log lines of the requests answered since `from`, their varying fields masked. */
const accessLines = (lines: Record<string, unknown>[], from: number) =>
  lines.slice(from).filter((l) => "status" in l && "method" in l)
    .map((l) => ({ ...l, time: "T", ms: 0, request_id: "ID" }));

Deno.test("early search - every GET /api/search answer is byte for byte the full path's, headers and log line included", async () => {
  const t = await setup();
  try {
    const k = t.publicKey;
    const target = (q: string) => `/api/search?key=${k}&q=${q}`;
    const get = (path: string, extra = "") =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`;
    const cases = [
      get(target("configuration")), // a miss on the first server asked, a hit on the second
      get(target("configuration")), // a hit on both
      get(target("install+cache")),
      get(target("%E2%82%AC%20server")),
      get(target("widget") + "&page=2&per_page=3"),
      get(target("token") + "&facets=false&filter=lang%3Aen"),
      get(`/api/search?q=index`, `X-API-Key: ${k}\r\n`),
      get(`/api/search?q=index`, `x-api-key: ${k}\r\nX-Api-Key: ${k}\r\n`),
      get(target("cache") + `&session=typing_session_1`, "Origin: https://anywhere.example\r\n"),
      get("/api/search?q=configuration"), // no key
      get(`/api/search?key=${k}&key=${k}&q=x`),
      get(`/api/search?key=pk_${"0".repeat(24)}&q=x`), // a key of no site
      get(`/api/search?key=sk_nope&q=x`),
      get(`/api/search?key=${k}`), // no q
      get(`/api/search?key=${k}&q=a&q=b`),
      get(target("x") + "&page=0"),
      get(target("x") + "&per_page=abc"),
      get(target("%ZZ")),
      get(target("it's%2Bmore+&&page=1&"), 'If-None-Match: "x"\r\nAccept-Encoding: gzip\r\n'),
      get(`/api/search?key=pk_${"1".repeat(24)}&q=cache`, `X-API-Key: ${k}\r\n`), // header wins
      get(`/api/search?key=${t.strictKey}&q=cache`, "Origin: https://other.example\r\n"),
      get(`/api/search?key=${t.strictKey}&q=cache`, "Origin: https://shop.example\r\n"),
      // Left to the app by the early hook, and answered the same either way.
      get(`/api/search/?key=${k}&q=cache`),
      get(`/api/%73earch?key=${k}&q=cache`),
      get(`/api/searches?key=${k}&q=cache`),
      `HEAD ${target("cache")} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      `GET ${target("cache")} HTTP/1.0\r\n\r\n`,
    ];
    // The strict site allows 4 searches a minute: past them, both paths answer its 429.
    for (let i = 0; i < 3; i++) cases.push(get(`/api/search?key=${t.strictKey}&q=more`));
    await clearOfMinuteEdge(); // the limits below count in one minute
    const statuses: number[] = [];
    for (const [i, raw] of cases.entries()) {
      // Alternate which path goes first, so each answers misses and hits.
      const order = i % 2 === 0 ? [t.fast, t.full] : [t.full, t.fast];
      const from = t.lines.length;
      const first = await exchange(order[0], raw);
      const mid = t.lines.length;
      const second = await exchange(order[1], raw);
      assert.ok(first.closed && second.closed, `closed after ${raw}`);
      statuses.push(first.responses[0].status);
      assert.equal(mask(first.raw), mask(second.raw), `the same answer to ${raw}`);
      assert.deepEqual(
        accessLines(t.lines, from).slice(0, mid - from),
        accessLines(t.lines, mid),
        `the same access line for ${raw}`,
      );
    }
    assert.deepEqual(statuses, [
      ...[200, 200, 200, 200, 200, 200, 200], // hits and misses, the key as a header too
      401, // X-API-Key twice: one value joined by ", ", as Headers.get gives it
      200,
      ...[401, 400, 401, 401, 400, 400, 400, 400, 400], // the key's and parameters' refusals
      ...[200, 200], // odd but valid parameters; the header's key over the parameter's
      ...[403, 200], // an origin the site does not allow, and one it does
      ...[404, 200, 404, 200, 200], // paths and a method the hook leaves to the app
      ...[200, 429, 429], // the strict site's fifth search in a minute and on
    ]);
    assert.deepEqual(t.reached, [
      "GET /api/search/",
      "GET /api/%73earch", // the app decodes it to /api/search; the hook does not
      "GET /api/searches",
      "HEAD /api/search",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("early search - kept-alive and pipelined searches are answered in order on one connection", async () => {
  const t = await setup();
  try {
    const get = (q: string, last = false) =>
      `GET /api/search?key=${t.publicKey}&q=${q} HTTP/1.1\r\nHost: x\r\n${
        last ? "Connection: close\r\n" : ""
      }\r\n`;
    const pipelined = get("configuration") + get("nothingmatches") +
      `GET /api/site?key=${t.publicKey} HTTP/1.1\r\nHost: x\r\n\r\n` + get("install", true);
    const fast = await exchange(t.fast, pipelined);
    const full = await exchange(t.full, pipelined);
    assert.deepEqual(fast.responses.map((r) => r.status), [200, 200, 200, 200]);
    assert.equal(mask(fast.raw), mask(full.raw));
    assert.equal(JSON.parse(fast.responses[1].body).meta.found, 0);
    assert.ok(JSON.parse(fast.responses[3].body).results.length > 0);
    assert.ok(fast.closed, "closed after the request that asked it");
    // Two requests on one kept-alive connection, the second after the first's answer.
    const kept = await exchange(t.fast, [get("cache"), get("token", true)], { gapMs: 50 });
    assert.deepEqual(kept.responses.map((r) => r.status), [200, 200]);
    assert.ok(!("connection" in kept.responses[0].headers), "the first answer keeps it open");
  } finally {
    await t.close();
  }
});
