/**
 * /docs/api, the API reference: it covers every API route the app serves and every error code of
 * the one table, and its curl lines, run by the real curl against the real app, work as shown.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { ERRORS } from "../../lib/http/errors.ts";
import { createSite, OPERATOR, putPages, type TestApp } from "../helpers.ts";

/** Text of an HTML fragment as a browser shows it. */
const text = (html: string) =>
  html.replace(/<[^>]*>/g, "").replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");

/** The app on a loopback port (curl needs one), with a fresh in-memory KV. */
async function served() {
  const kv = await Deno.openKv(":memory:");
  const { app, services } = createApp({ kv, operatorToken: OPERATOR, log: () => {} });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const call = (path: string, init?: RequestInit) => fetch(origin + path, init);
  return {
    app,
    kv,
    services,
    origin,
    call,
    close: async () => {
      await server.shutdown();
      services.analytics.discard();
      services.quota.discard();
      kv.close();
    },
  };
}

/** Signs in to the dashboard with `key` and returns the Cookie header value. */
async function session(
  call: (path: string, init?: RequestInit) => Promise<Response>,
  origin: string,
  key: string,
) {
  const res = await call("/dashboard/session", {
    method: "POST",
    headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key }),
    redirect: "manual",
  });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return res.headers.get("set-cookie")!.split(";")[0];
}

/** The page's curl lines, by the endpoint anchor they document. */
function curls(page: string): Map<string, string> {
  const out = new Map<string, string>();
  for (
    const m of page.matchAll(/<pre class="code curl" data-curl="([\w-]+)"><code>(.*?)<\/code>/gs)
  ) {
    out.set(m[1], text(m[2]));
  }
  return out;
}

Deno.test("docs - the reference documents every API route the app serves, and every error code", async () => {
  const t = await served();
  try {
    const res = await t.call("/docs/api");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    const page = await res.text();
    assert.ok(!page.includes("<script"), "a reference without islands ships no JavaScript");
    const documented = new Set(
      Array.from(
        page.matchAll(/<span class="method \w+">(\w+)<\/span> <code>([^<]+)<\/code>/g),
        (m) => `${m[1]} ${m[2]}`,
      ),
    );
    const served = new Set(
      t.app.routes.filter((r) =>
        (r.path.startsWith("/api/") || ["/healthz", "/indexnow"].includes(r.path)) &&
        r.method !== "ALL" &&
        !r.path.includes("*")
      ).map((r) => `${r.method} ${r.path}`),
    );
    assert.ok(served.size > 30, `the app's routes were found (${served.size})`);
    const missing = [...served].filter((r) => !documented.has(r));
    assert.deepEqual(missing, [], "every route the app serves is documented");
    const extra = [...documented].filter((r) => !served.has(r));
    assert.deepEqual(extra, [], "nothing is documented that the app does not serve");

    for (const [code, { status, type }] of Object.entries(ERRORS)) {
      const row = new RegExp(`<tr id="error-${code}">(.*?)</tr>`, "s").exec(page);
      assert.ok(row, code);
      const cells = Array.from(row[1].matchAll(/<td[^>]*>(.*?)<\/td>/gs), (m) => text(m[1]));
      assert.equal(cells[0], String(status), code);
      assert.equal(cells[1], code);
      assert.equal(cells[2], type);
      assert.ok(cells[3].length > 10, `${code} says when it is answered`);
    }
    // Every error an endpoint names links to a row of the table.
    for (const m of page.matchAll(/href="#error-(\w+)"/g)) assert.ok(m[1] in ERRORS, m[1]);
    assert.match(text(page), /"code": "INVALID_PARAMETER",\s+"type": "invalid_request_error"/);
  } finally {
    await t.close();
  }
});

Deno.test("docs - signed in, the curl lines carry the site's public key and id, and run as shown", async () => {
  const t = await served();
  try {
    const helpers = { call: t.call } as unknown as TestApp; // the helpers only call
    const site = await createSite(helpers, "pro", "Zephyr Kettles");
    await putPages(helpers, site, [
      { url: "/shipping", title: "Shipping", body: "We ship kettles within two days." },
    ]);
    const anonymous = curls(await (await t.call("/docs/api")).text());
    assert.match(anonymous.get("get-api-search")!, /X-API-Key: pk_YOUR_KEY/);
    assert.match(anonymous.get("get-api-admin-sites-id-usage")!, /\/sites\/SITE_ID\/usage/);

    const cookie = await session(t.call, t.origin, site.adminKey);
    const page = await (await t.call("/docs/api", { headers: { Cookie: cookie } })).text();
    assert.ok(!page.includes(site.adminKey), "the admin key is never on the page");
    assert.match(text(page), /The examples use Zephyr Kettles/);
    const lines = curls(page);
    assert.ok(lines.size > 30);
    assert.ok(lines.get("get-api-search")!.includes(`X-API-Key: ${site.publicKey}`));
    assert.ok(lines.get("get-api-search")!.startsWith(`curl '${t.origin}/api/search?`));

    // The lines as a reader pastes them in a shell where SITESEARCH_ADMIN_KEY is set.
    const run = async (anchor: string) => {
      const line = lines.get(anchor);
      assert.ok(line, anchor);
      const out = await new Deno.Command("bash", {
        args: ["-c", `${line} -s -o /dev/null -w '%{http_code}'`],
        env: { SITESEARCH_ADMIN_KEY: site.adminKey, SITESEARCH_OPERATOR_TOKEN: OPERATOR },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return Number(new TextDecoder().decode(out.stdout));
    };
    const expected: [string, number][] = [
      ["get-api-search", 200],
      ["get-api-site", 200],
      ["get-api-admin-sites-id", 200],
      ["patch-api-admin-sites-id", 200], // turns AI answers on, for the next line
      ["post-api-summarize", 200],
      ["get-api-admin-sites-id-usage", 200],
      ["get-api-admin-sites-id-analytics", 200],
      ["put-api-admin-sites-id-pages", 200],
      ["get-api-admin-sites-id-pages", 200],
      ["put-api-admin-sites-id-synonyms", 200],
      ["put-api-admin-sites-id-curations", 200],
      ["post-api-admin-sites-id-levers-preview", 200],
      ["get-api-admin-sites-id-suggestions", 200],
      ["post-api-feedback", 404], // the example's conversation id is a placeholder
      ["post-indexnow", 422], // no site here crawls the example's host
      ["get-indexnow", 422],
    ];
    for (const [anchor, status] of expected) assert.equal(await run(anchor), status, anchor);
    // The search example now finds the page the pages example stored.
    const found = await t.call(`/api/search?q=days&key=${site.publicKey}`);
    const hit = (await found.json()).results[0];
    assert.equal(hit?.description, "We ship within two days.");
    // Rotating the public key with the example's grace period: the old key still searches.
    assert.equal(await run("post-api-admin-sites-id-keys-rotate"), 200);
    assert.equal(await run("get-api-search"), 200, "the old key works during its grace period");

    // The operator's session stands for no one site: placeholders.
    const op = await session(t.call, t.origin, OPERATOR);
    const opLines = curls(await (await t.call("/docs/api", { headers: { Cookie: op } })).text());
    assert.match(opLines.get("get-api-search")!, /pk_YOUR_KEY/);
  } finally {
    await t.close();
  }
});
