/** The IndexNow ping as the protocol writes it, read into one ping or refused with its status. */
import assert from "node:assert/strict";
import { DomainError } from "../../lib/errors.ts";
import { statusOf } from "../../lib/http/errors.ts";
import { IndexNowBody, IndexNowQuery, parse } from "../../lib/http/schemas.ts";
import { pingFromBody, pingFromQuery } from "../../lib/indexnow/protocol.ts";

const KEY = "73134416ae45434d98edc086e0bf6740";

/** The body as the route reads it: shape first, then the protocol's rules. */
const body = (b: unknown) => pingFromBody(parse(IndexNowBody, b));
const query = (q: string) => {
  const params = new URLSearchParams(q);
  const all: Record<string, string[]> = {};
  for (const name of new Set(params.keys())) all[name] = params.getAll(name);
  return pingFromQuery(parse(IndexNowQuery, all));
};

/** The refusal `run` throws, as status, code and param. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof DomainError, String(err));
    return { status: statusOf(err), code: err.code, param: err.details.param ?? null };
  }
  assert.fail("no refusal");
}

Deno.test("indexnow protocol - the protocol's own POST example reads as a ping of its three URLs", () => {
  const ping = body({
    host: "www.example.com",
    key: `${KEY} `, // the protocol's example key ends in a space
    urlList: [
      "https://www.example.com/url1",
      "https://www.example.com/folder/url2",
      "http://www.example.com/url3#part",
      "https://www.example.com/url1",
    ],
  });
  assert.deepEqual(ping, {
    host: "www.example.com",
    key: KEY,
    keyLocation: null,
    urls: [
      "https://www.example.com/url1",
      "https://www.example.com/folder/url2",
      "http://www.example.com/url3",
    ],
    form: "post",
  });
});

Deno.test("indexnow protocol - the GET form takes its host from the url, and keyLocation", () => {
  const ping = query(
    `url=${encodeURIComponent("https://Example.com:8443/keys/a?b=1")}&key=${KEY}` +
      `&keyLocation=${encodeURIComponent("https://example.com:8443/keys/k.txt")}`,
  );
  assert.equal(ping.host, "example.com:8443");
  assert.deepEqual(ping.urls, ["https://example.com:8443/keys/a?b=1"]);
  assert.equal(ping.keyLocation, "https://example.com:8443/keys/k.txt");
});

Deno.test("indexnow protocol - a ping that does not parse is a 400 naming the field", () => {
  const good = { host: "example.com", key: KEY, urlList: ["https://example.com/a"] };
  assert.deepEqual(refusal(() => body({ ...good, host: undefined })), {
    status: 400,
    code: "INVALID_PARAMETER",
    param: "host",
  });
  assert.equal(refusal(() => body({ ...good, urlList: undefined })).param, "urlList");
  assert.equal(refusal(() => body({ ...good, urlList: [] })).param, "urlList");
  assert.equal(refusal(() => body({ ...good, urlList: "https://example.com/a" })).status, 400);
  assert.equal(refusal(() => body({ ...good, key: 42 })).param, "key");
  const many = Array.from({ length: 10_001 }, (_, i) => `https://example.com/${i}`);
  assert.equal(refusal(() => body({ ...good, urlList: many })).param, "urlList");
  assert.equal(refusal(() => body({ ...good, host: "example.com/path" })).param, "host");
  assert.deepEqual(refusal(() => body({ ...good, urlList: ["https://example.com/a", "nope"] })), {
    status: 400,
    code: "INVALID_PARAMETER",
    param: "urlList[1]",
  });
  assert.equal(refusal(() => body({ ...good, urlList: ["ftp://example.com/a"] })).status, 400);
  assert.equal(refusal(() => query(`key=${KEY}`)).param, "url");
  assert.equal(refusal(() => query("url=https://example.com/")).param, "key");
  const twice = `url=https://example.com/a&url=https://example.com/b&key=${KEY}`;
  assert.deepEqual(refusal(() => query(twice)), {
    status: 400,
    code: "INVALID_PARAMETER",
    param: "url",
  });
});

Deno.test("indexnow protocol - a key off the schema and a URL off the host are the protocol's 422s", () => {
  const good = { host: "example.com", key: KEY, urlList: ["https://example.com/a"] };
  for (const key of ["short7c", "x".repeat(129), "key_with_underscore", "clé-accentuée-1"]) {
    assert.deepEqual(refusal(() => body({ ...good, key })), {
      status: 422,
      code: "INDEXNOW_KEY_MALFORMED",
      param: "key",
    });
  }
  assert.deepEqual(
    refusal(() => body({ ...good, urlList: ["https://example.com/a", "https://other.example/b"] })),
    { status: 422, code: "INDEXNOW_URL_NOT_ON_HOST", param: "urlList[1]" },
  );
  // Another port is another host.
  assert.equal(
    refusal(() => body({ ...good, urlList: ["https://example.com:8080/a"] })).code,
    "INDEXNOW_URL_NOT_ON_HOST",
  );
  assert.deepEqual(
    refusal(() => body({ ...good, keyLocation: "https://other.example/k.txt" })),
    { status: 422, code: "INDEXNOW_URL_NOT_ON_HOST", param: "keyLocation" },
  );
});

Deno.test("indexnow protocol - a key file in a folder vouches only for URLs under that folder", () => {
  const ping = {
    host: "example.com",
    key: KEY,
    keyLocation: "https://example.com/blog/key.txt",
  };
  assert.deepEqual(
    body({ ...ping, urlList: ["https://example.com/blog/", "https://example.com/blog/post"] })
      .urls,
    ["https://example.com/blog/", "https://example.com/blog/post"],
  );
  assert.deepEqual(
    refusal(() =>
      body({ ...ping, urlList: ["https://example.com/blog/a", "https://example.com/shop/b"] })
    ),
    { status: 422, code: "INDEXNOW_URL_NOT_ON_HOST", param: "urlList[1]" },
  );
  assert.equal(
    refusal(() => body({ ...ping, urlList: ["https://example.com/blogroll"] })).param,
    "urlList[0]",
  );
});
