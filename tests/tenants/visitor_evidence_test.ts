/**
 * Suggestions are made of what visitors did, and a session id is the client's choice: one
 * client sending a query pair, or a click on a result, under many sessions is one visitor.
 * Requests come over real HTTP, from "visitors" behind a trusted proxy on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { QUIET_MS, SETTLE_MS } from "../../lib/analytics/typing.ts";
import { parseTrustedProxies } from "../../lib/http/proxies.ts";
import { admin, createSite, manualClock, putPages, startApp } from "../helpers.ts";
import { SHOP } from "../levers/helpers.ts";

async function shopOverHttp(more: typeof SHOP = []) {
  const clock = manualClock();
  const t = await startApp({ clock, trustedProxies: parseTrustedProxies("127.0.0.1") });
  const site = await createSite(t, "pro");
  await putPages(t, site, [...SHOP, ...more]);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    t.fetch,
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  /** GET /api/search as `visitor` (its address, as the proxy says). */
  const searchAs = async (visitor: string, params: string) => {
    const res = await fetch(`${base}/api/search?key=${site.publicKey}&${params}`, {
      headers: { "X-Forwarded-For": visitor },
    });
    assert.equal(res.status, 200);
    return await res.json();
  };
  const clickAs = async (visitor: string, event: Record<string, unknown>) => {
    const res = await fetch(`${base}/api/events`, {
      method: "POST",
      headers: {
        "X-API-Key": site.publicKey,
        "Content-Type": "application/json",
        "X-Forwarded-For": visitor,
      },
      body: JSON.stringify({ type: "click", ...event }),
    });
    assert.equal(res.status, 204);
    await res.body?.cancel();
  };
  const settle = async () => {
    clock.advance(QUIET_MS + 1);
    await t.services.analytics.flush();
    clock.advance(SETTLE_MS + 1);
    await t.services.analytics.flush();
  };
  const suggestions = async () => {
    const res = await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey));
    assert.equal(res.status, 200);
    return (await res.json()).suggestions as { kind: string; query: string; why: string }[];
  };
  const close = async () => {
    await server.shutdown();
    t.close();
  };
  return { searchAs, clickAs, settle, suggestions, close };
}

Deno.test("visitor evidence - one address typing a query pair under six sessions is one visitor: no synonym is suggested until others do it too", async () => {
  const shop = await shopOverHttp();
  try {
    const pair = async (visitor: string, session: string) => {
      assert.equal((await shop.searchAs(visitor, `q=tshrit&session=${session}`)).meta.found, 0);
      assert.ok((await shop.searchAs(visitor, `q=T-shirt&session=${session}`)).meta.found > 0);
    };
    for (let i = 0; i < 6; i++) await pair("203.0.113.5", `forged-session-${i}`);
    await shop.settle();
    const planted = (await shop.suggestions()).filter((s) => s.query === "tshrit");
    assert.deepEqual(planted, [], "one client's six sessions suggest nothing");

    for (let v = 1; v <= 3; v++) await pair(`198.51.100.${v}`, `real-session-${v}`);
    await shop.settle();
    const s = (await shop.suggestions()).find((x) => x.query === "tshrit");
    assert.ok(s, "three visitors do");
    assert.equal(s.kind, "synonym");
    assert.match(s.why, /^4 visitors who searched/, "the forger counts once, with the three");
  } finally {
    await shop.close();
  }
});

Deno.test("visitor evidence - one address clicking a low result six times is one click of evidence: a pin is suggested only once other visitors click it too", async () => {
  // Pages that name "money back" in their titles, so that the refunds page is shown fifth.
  const offers = ["Guarantee", "Gift cards", "Price match", "Loyalty"].map((name) => ({
    url: `/offers/${name.toLowerCase().replace(" ", "-")}`,
    title: `${name}: money back`,
    body: `${name} with money back on every order.`,
  }));
  const shop = await shopOverHttp(offers);
  try {
    const clickLow = async (visitor: string) => {
      const results = (await shop.searchAs(visitor, "q=money%20back")).results as {
        url: string;
        click: string;
      }[];
      const position = results.findIndex((r) => r.url === "/support/refunds") + 1;
      assert.equal(position, 5, "the refunds page is shown fifth");
      const { url, click } = results[position - 1];
      await shop.clickAs(visitor, { query: "money back", position, url, click });
    };
    for (let i = 0; i < 6; i++) await clickLow("203.0.113.5");
    await shop.settle();
    const pins = () => shop.suggestions().then((list) => list.filter((s) => s.kind === "pin"));
    assert.deepEqual(await pins(), [], "one client's six clicks plant no pin");

    for (let v = 1; v <= 3; v++) await clickLow(`198.51.100.${v}`);
    await shop.settle();
    const [pin] = await pins();
    assert.ok(pin, "four visitors' clicks do");
    assert.equal(pin.query, "money back");
    assert.match(pin.why, /^4 of 4 clicks/);
  } finally {
    await shop.close();
  }
});
