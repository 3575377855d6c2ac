/**
 * GET /api/search on the wire, served as main.ts serves it: every answer, hits, misses and
 * every refusal alike, carries the public API's CORS headers and its request id, which its one
 * access log line names. (Both forms of the route answering alike, and pipelining:
 * early_search_test.ts.)
 */
import assert from "node:assert/strict";
import { serveHttp } from "../../lib/http/server/mod.ts";
import { exchange } from "./raw.ts";
import { clearOfMinuteEdge } from "../fixtures/minute_edge.ts";
import { searchSites } from "./search_sites.ts";

/** The sites, served as main.ts serves them (GET /api/search's early form, the app for the rest). */
async function setup() {
  const sites = await searchSites("op_front_test");
  const server = serveHttp({ hostname: "127.0.0.1", port: 0, early: sites.early }, sites.app.fetch);
  return {
    ...sites,
    port: server.addr.port,
    async close() {
      await server.shutdown();
      await sites.close();
    },
  };
}

/** What differs between two answers to the same request: the request id, Date, quota counts. */
const mask = (raw: string) =>
  raw.replace(/req_[0-9A-Za-z]+/g, "req_ID")
    .replace(/\r\ndate: [^\r]+/g, "\r\ndate: DATE")
    .replace(/;r=\d+;t=\d+/g, ";r=N;t=N");

/** The access log lines written since `from`. */
const accessLines = (lines: Record<string, unknown>[], from: number) =>
  lines.slice(from).filter((l) => "status" in l && "method" in l);

Deno.test("search front - every GET /api/search answer carries CORS and its request id, logged once, a hit the same bytes as the miss", async () => {
  const t = await setup();
  try {
    const k = t.publicKey;
    const target = (q: string) => `/api/search?key=${k}&q=${q}`;
    const get = (path: string, extra = "") =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`;
    const cases = [
      get(target("configuration")),
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
      get(target("it's%2Bmore+&&page=1&"), 'If-None-Match: "x"\r\nAccept-Encoding: gzip\r\n'),
      get(`/api/search?key=pk_${"1".repeat(24)}&q=cache`, `X-API-Key: ${k}\r\n`), // header wins
      get(`/api/search?key=${t.strictKey}&q=cache`, "Origin: https://other.example\r\n"),
      get(`/api/search?key=${t.strictKey}&q=cache`, "Origin: https://shop.example\r\n"),
      get(`/api/%73earch?key=${k}&q=cache`), // the router decodes the path
      `HEAD ${target("cache")} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      `GET ${target("cache")} HTTP/1.0\r\n\r\n`,
      `POST ${
        target("cache")
      } HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    ];
    // The strict site allows 4 searches a minute: past them, its 429.
    for (let i = 0; i < 3; i++) cases.push(get(`/api/search?key=${t.strictKey}&q=more`));
    await clearOfMinuteEdge(); // the limits below count in one minute
    const statuses: number[] = [];
    for (const raw of cases) {
      // Twice: a miss, then (for a search) the result cache's hit.
      const from = t.lines.length;
      // Each closes after its answer: a slow one (the site's first search) is waited for.
      const first = await exchange(t.port, raw, { quietMs: 5000 });
      const second = await exchange(t.port, raw, { quietMs: 5000 });
      assert.ok(first.closed && second.closed, `closed after ${raw}`);
      const status = first.responses[0].status;
      statuses.push(status);
      if (status !== 429) {
        assert.equal(mask(first.raw), mask(second.raw), `the same answer to ${raw}`);
      }
      const logged = accessLines(t.lines, from);
      assert.equal(logged.length, 2, `one access line a request for ${raw}`);
      for (const [i, { headers }] of [first.responses[0], second.responses[0]].entries()) {
        assert.equal(headers["access-control-allow-origin"], "*", raw);
        assert.equal(
          headers["access-control-expose-headers"],
          "RateLimit,RateLimit-Policy,Retry-After,X-Request-Id",
        );
        assert.match(headers["x-request-id"], /^req_/);
        assert.equal(logged[i].request_id, headers["x-request-id"]);
        assert.equal(logged[i].path, "/api/search");
        assert.equal(logged[i].status, i === 0 ? status : second.responses[0].status);
      }
    }
    assert.deepEqual(statuses, [
      ...[200, 200, 200, 200, 200, 200], // hits and misses, the key as a header too
      401, // X-API-Key twice: one value joined by ", ", as Headers.get gives it
      200,
      ...[401, 400, 401, 401, 400, 400, 400, 400], // the key's and parameters' refusals
      ...[200, 200], // odd but valid parameters; the header's key over the parameter's
      ...[403, 200], // an origin the site does not allow, and one it does
      ...[200, 200, 200, 405], // a percent-encoded path, HEAD, HTTP/1.0, and a method it refuses
      ...[200, 429, 429], // the strict site's fifth search in a minute and on
    ]);
  } finally {
    await t.close();
  }
});
