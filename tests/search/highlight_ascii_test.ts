import assert from "node:assert/strict";
import { findMatches, makeMatcher } from "../../lib/search/engine/presentation/highlight.ts";

/** The words a query's roots mark in a text without accented letters, as shown. */
const marked = (text: string, words: string[]) =>
  findMatches(text, makeMatcher(words, []), { accented: false }).map(([s, e]) => text.slice(s, e));

Deno.test("highlight - words beside dashes, quotes and other scripts are marked whole in any case", () => {
  const text = "“Proxy”—PROXY_SETTINGS and proxies; 代理proxy; Proxy–server “proxy.";
  assert.deepEqual(marked(text, ["proxy"]), [
    "Proxy",
    "PROXY_SETTINGS",
    "Proxy",
    "proxy",
  ]);
});

Deno.test("highlight - a word a root begins is marked to its end, once, whichever roots begin it", () => {
  const text = "Cache CACHE_TTL cached: cache-control, CACHE_TTLs";
  assert.deepEqual(marked(text, ["cache", "cache_ttl"]), [
    "Cache",
    "CACHE_TTL",
    "cached",
    "cache",
    "CACHE_TTLs",
  ]);
});
