/**
 * The URL our server hands the app for a request-target (RFC 9112 section 3.2, head.ts): the
 * one the WHATWG URL parser makes of the Host and the target, whichever way head.ts gets there.
 */
import assert from "node:assert/strict";
import { parseHead } from "../../lib/http/server/head.ts";

const head = (target: string, host: string | null) =>
  new TextEncoder().encode(
    `GET ${target} HTTP/1.1\r\n${host === null ? "" : `Host: ${host}\r\n`}Accept: */*`,
  );

Deno.test("request URL - the app gets what the URL parser makes of Host and target, for plain and unusual targets alike", () => {
  const hosts = [
    "127.0.0.1:8000",
    "Example.COM",
    "example.com:80",
    "shop.example:08080",
    "[::1]:8000",
    "[0:0::1]",
    "xn--caf-dma.example",
  ];
  const targets = [
    "/",
    "/api/search?key=pk_abc&q=configuration",
    "/api/search?key=pk_abc&q=a+b&page=2&per_page=3",
    "/api/search?q=%E2%82%AC%20server&x=%2e%2E",
    "/api/search?",
    "/a//b/?q=1?2",
    "/api/search?q=it's",
    "/api/search?q=[x]&r={y}|z^`",
    "/p/caf%C3%A9/(1)!*,;=:@$~",
    "/API/Search?Q=Tea",
  ];
  for (const host of hosts) {
    for (const target of targets) {
      const got = parseHead(head(target, host), "127.0.0.1:1", 1024).url;
      assert.equal(got, new URL(`http://${host}${target}`).href, `${host} ${target}`);
      // Asked twice (the second time from what head.ts remembers of the Host): the same.
      assert.equal(parseHead(head(target, host), "127.0.0.1:1", 1024).url, got);
    }
  }
});

Deno.test("request URL - an empty Host takes the server's own authority, and a Host the URL parser refuses is a 400", () => {
  assert.equal(
    parseHead(head("/api/search?q=x", ""), "127.0.0.1:4321", 1024).url,
    "http://127.0.0.1:4321/api/search?q=x",
  );
  for (let i = 0; i < 2; i++) {
    assert.throws(
      () => parseHead(head("/api/search?q=x", "[::1"), "127.0.0.1:1", 1024),
      (e: { status?: number }) => e.status === 400,
    );
    assert.throws(
      () => parseHead(head("/", "999.1.1.1"), "127.0.0.1:1", 1024),
      (e: { status?: number }) => e.status === 400,
    );
  }
});

Deno.test("request URL - many different Host values are each answered with their own authority", () => {
  for (let i = 0; i < 300; i++) {
    const host = `host${i}.example:${1000 + i}`;
    assert.equal(
      parseHead(head("/healthz", host), "127.0.0.1:1", 1024).url,
      `http://${host}/healthz`,
    );
  }
  assert.equal(
    parseHead(head("/x", "host0.example:1000"), "s:1", 1024).url,
    "http://host0.example:1000/x",
  );
});
