/**
 * Requests made up at random (a fixed seed, so a failure is found again) against main.ts over
 * HTTP: odd strings, numbers and nesting in every parameter and body field, every method, with
 * and without keys. Whatever a client sends, the service answers it with a 4xx and the API's
 * error envelope, never a 5xx, logs no error, and goes on answering its visitors.
 */
import assert from "node:assert/strict";
import { startMain } from "../fixtures/instance.ts";
import { pick, seeded } from "../fixtures/seeded.ts";

const OPERATOR = "op_random_requests_test";
const REQUESTS = 3_000;

/** The seeded draws: the same requests on every run. */
function generator(seed: number) {
  const next = seeded(seed);
  return { next, pick: <T>(items: readonly T[]): T => pick(next, items) };
}

/**
 * Strings a careless or hostile client sends. None names a host beyond this machine: a crawl
 * started with one must not reach out (and loopback URLs are refused by default).
 */
const STRINGS = [
  "",
  " ",
  "a",
  "café",
  "\u0000",
  "\ud800",
  "x".repeat(5000),
  "../../etc/passwd",
  "%",
  "%ZZ",
  "<script>alert(1)</script>",
  "null",
  "-1",
  "1e309",
  "NaN",
  "\u202e",
  "日本語の文章",
  "a.b.c",
  '"quoted"',
  "*",
  "?",
  "#frag",
  "http://127.0.0.1:1/",
  "/",
  "//",
  "🙂".repeat(200),
  "\r\n",
  "a\tb",
  "é".repeat(1000),
];

const FIELDS = [
  "q",
  "query",
  "url",
  "title",
  "body",
  "pages",
  "name",
  "plan",
  "limits",
  "searchesPerMinute",
  "synonyms",
  "curations",
  "pin",
  "hide",
  "answers",
  "filters",
  "lang",
  "include",
  "exclude",
  "maxPages",
  "type",
  "session",
  "helpful",
  "position",
  "token",
  "allowedOrigins",
  "settings",
  "phrases",
  "urls",
  "content",
  "filename",
];

const PARAMS = ["q", "key", "page", "per_page", "facets", "filter", "session", "cursor", "limit"];

/** The public search, the surface every visitor reaches. */
const SEARCH: [string, string[]] = ["/api/search", ["GET"]];

/** The routes (S: the site's id) and the methods each answers, as docs/api.md lists them. */
const ROUTES: [string, string[]][] = [
  SEARCH,
  ["/api/site", ["GET"]],
  ["/api/summarize", ["POST"]],
  ["/api/events", ["POST"]],
  ["/api/feedback", ["POST"]],
  ["/api/admin/sites", ["GET", "POST"]],
  ["/api/admin/sites/S", ["GET", "PATCH"]],
  ["/api/admin/sites/S/usage", ["GET"]],
  ["/api/admin/sites/S/pages", ["GET", "PUT", "DELETE"]],
  ["/api/admin/sites/S/crawl", ["GET", "POST"]],
  ["/api/admin/sites/S/crawl/none", ["GET"]],
  ["/api/admin/sites/S/crawl/none/urls", ["GET"]],
  ["/api/admin/sites/S/urls/status", ["GET"]],
  ["/api/admin/sites/S/documents", ["GET", "POST"]],
  ["/api/admin/sites/S/documents/none", ["GET", "DELETE"]],
  ["/api/admin/sites/S/synonyms", ["GET", "PUT"]],
  ["/api/admin/sites/S/curations", ["GET", "PUT"]],
  ["/api/admin/sites/S/answers", ["GET", "PUT"]],
  ["/api/admin/sites/S/levers/preview", ["POST"]],
  ["/api/admin/sites/S/suggestions", ["GET"]],
  ["/api/admin/sites/S/suggestions/dismissed", ["POST"]],
  ["/api/admin/sites/S/analytics", ["GET"]],
  ["/api/admin/stats", ["GET"]],
  ["/search", ["GET"]],
  ["/docs", ["GET"]],
];

Deno.test("random requests - whatever a client sends is a 4xx with the error envelope, never a 5xx, and the service goes on", async () => {
  const dir = await Deno.makeTempDir();
  const inst = await startMain({ KV_PATH: `${dir}/kv` }, { operatorToken: OPERATOR });
  const { next, pick } = generator(20261206);
  const text = () =>
    next() < 0.6 ? pick(STRINGS) : Array.from(
      { length: Math.floor(next() * 40) },
      () => String.fromCharCode(Math.floor(next() * (next() < 0.7 ? 128 : 0xffff))),
    ).join("");
  const value = (depth = 0): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) return text();
    if (r < 0.45) return pick([0, -1, 1, 1e308, 0.5, 2 ** 53 + 1, 500, 501, null, true, false]);
    if (r < 0.7) return Array.from({ length: Math.floor(next() * 5) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = 0; i < Math.floor(next() * 5); i++) o[pick(FIELDS)] = value(depth + 1);
    return o;
  };
  try {
    const sites = await (await fetch(`${inst.url}/api/admin/sites`, {
      headers: { Authorization: `Bearer ${OPERATOR}` },
    })).json();
    const siteId: string = sites.sites[0].id;
    // A site the random requests never name: what they do to theirs must not reach it.
    const operator = { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" };
    const made = await (await fetch(`${inst.url}/api/admin/sites`, {
      method: "POST",
      headers: operator,
      body: JSON.stringify({ name: "Bystander", plan: "free" }),
    })).json();
    const put = await fetch(`${inst.url}/api/admin/sites/${made.site.id}/pages`, {
      method: "PUT",
      headers: { ...operator, Authorization: `Bearer ${made.adminKey}` },
      body: JSON.stringify({
        pages: [{ url: "/guide", title: "Guide", body: "A guide to gardens." }],
      }),
    });
    assert.equal(put.status, 200);
    await put.body?.cancel();
    const tokens = [`Bearer ${inst.adminKey}`, `Bearer ${OPERATOR}`];
    const statuses = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      // A fifth of them are searches.
      const [route, methods] = next() < 0.2 ? SEARCH : pick(ROUTES);
      const path = route.replace("/S", `/${siteId}`);
      const method = next() < 0.1 ? pick(["GET", "POST", "PUT", "PATCH"]) : pick(methods);
      const params = new URLSearchParams();
      for (let k = 0; k < Math.floor(next() * 4); k++) params.append(pick(PARAMS), text());
      if (next() < 0.7) params.set("key", inst.publicKey);
      if (route === SEARCH[0] && next() < 0.9) params.set("q", text());
      const headers: Record<string, string> = { Authorization: pick(tokens) };
      if (next() < 0.3) headers.Origin = pick(["http://elsewhere.example", "null", "x"]);
      let body: string | undefined;
      if (method !== "GET" && method !== "DELETE") {
        headers["Content-Type"] = next() < 0.1 ? "text/plain" : "application/json";
        body = next() < 0.1
          ? pick(["{", "[]", "null", '"x"', '{"a":' + "[".repeat(5000)])
          : JSON.stringify(value());
        // Bodies of the right shape with odd values, to reach each route's deeper checks.
        if (next() < 0.5) {
          if (route === "/api/summarize") body = JSON.stringify({ query: text() });
          if (route.endsWith("/pages")) {
            body = JSON.stringify({
              pages: [value(), { url: text(), title: text(), body: text() }],
            });
          }
          if (route.endsWith("/synonyms")) body = JSON.stringify({ synonyms: [[text(), text()]] });
        }
      }
      const query = params.toString();
      const where = `${method} ${path}?${query.slice(0, 120)} ${body?.slice(0, 200) ?? ""}`;
      const res = await fetch(`${inst.url}${path}${query ? "?" + query : ""}`, {
        method,
        headers,
        body,
      });
      const answer = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      assert.ok(res.status < 500, `${res.status} for ${where}: ${answer.slice(0, 200)}`);
      if (res.status >= 400 && path.startsWith("/api/")) {
        const { error } = JSON.parse(answer);
        assert.equal(typeof error?.code, "string", where);
        assert.equal(error.status, res.status, where);
      }
    }
    // Most requests reached a route's own checks, not only the method or key gate.
    const refused = statuses.get(400) ?? 0, answered = statuses.get(200) ?? 0;
    assert.ok(refused > REQUESTS / 10 && answered > REQUESTS / 10, JSON.stringify([...statuses]));
    // Nothing was poisoned: another site still finds its page, and no error was logged.
    const search = await fetch(`${inst.url}/api/search?key=${made.publicKey}&q=gardens`);
    assert.equal(search.status, 200);
    assert.deepEqual((await search.json()).results.map((r: { url: string }) => r.url), ["/guide"]);
    assert.doesNotMatch(inst.out(), /"level":"error"/);
  } finally {
    await inst.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
