/** The dashboard's sign-in, session cookie and Origin checks, against the real app in process. */
import assert from "node:assert/strict";
import { admin, createSite, manualClock, OPERATOR, startApp, type TestApp } from "../helpers.ts";

const ORIGIN = "http://127.0.0.1";

/** POST /dashboard/session as the browser's form would send it. */
const signIn = (t: TestApp, key: string, headers: Record<string, string> = { Origin: ORIGIN }) =>
  t.call("/dashboard/session", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ key }),
    redirect: "manual",
  });

/** Signs in and returns the Cookie header value. */
async function session(t: TestApp, key: string): Promise<string> {
  const res = await signIn(t, key);
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return res.headers.get("set-cookie")!.split(";")[0];
}

Deno.test("dashboard - without a session it shows the sign-in form and no JavaScript", async () => {
  const t = await startApp();
  try {
    const res = await t.call("/dashboard");
    const page = await res.text();
    assert.equal(res.status, 200);
    assert.match(page, /<form method="post" action="\/dashboard\/session">/);
    assert.match(page, /name="key"/);
    assert.ok(!page.includes("<script"));
  } finally {
    t.close();
  }
});

Deno.test("dashboard - sign-in refuses a foreign or missing Origin, and a wrong key gets a message", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic");
    const refused: Record<string, string>[] = [{ Origin: "https://evil.example" }, {}, {
      Origin: "null",
    }];
    for (const headers of refused) {
      const res = await signIn(t, site.adminKey, headers);
      const body = await res.json();
      assert.equal(res.status, 403);
      assert.equal(body.error.code, "ORIGIN_NOT_ALLOWED");
      assert.equal(res.headers.get("set-cookie"), null);
    }
    for (const key of ["sk_" + "x".repeat(32), site.publicKey, "", "op_guess"]) {
      const res = await signIn(t, key);
      const page = await res.text();
      assert.equal(res.status, 401, key);
      assert.match(page, /role="alert">(That key is not valid|Enter your site admin key)/);
      assert.equal(res.headers.get("set-cookie"), null);
    }
  } finally {
    t.close();
  }
});

Deno.test("dashboard - the session cookie is HttpOnly, SameSite=Strict, expiring, Secure over HTTPS", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic");
    const res = await signIn(t, site.adminKey);
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/dashboard");
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /^sitesearch_session=[A-Za-z0-9]{32}\.[A-Za-z0-9_-]{43};/);
    for (const attr of ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"]) {
      assert.ok(cookie.includes(attr), attr);
    }
    assert.ok(!cookie.includes("Secure"), "plain HTTP on loopback");
    const https = await signIn(t, site.adminKey, {
      Origin: ORIGIN,
      "X-Forwarded-Proto": "https",
    });
    await https.body?.cancel();
    assert.match(https.headers.get("set-cookie")!, /; Secure/);
    assert.ok(!cookie.includes(site.adminKey));
  } finally {
    t.close();
  }
});

Deno.test("dashboard - a site session shows the site's panels and calls the admin API with Origin checks", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic", "Zephyr Kettles");
    const other = await createSite(t, "basic", "Other");
    const cookie = await session(t, site.adminKey);
    const page = await (await t.call("/dashboard", { headers: { Cookie: cookie } })).text();
    assert.match(page, /<h1>Zephyr Kettles<\/h1>/);
    for (
      const island of [
        "UsageMeters",
        "AnalyticsPanel",
        "SettingsForm",
        "KeysPanel",
        "ContentPanel",
        "FirstRun",
      ]
    ) {
      assert.ok(page.includes(`data-island="${island}"`), island);
    }
    // A site without pages yet has the embed code in its first steps, not a panel of its own.
    assert.ok(!page.includes(`data-island="EmbedSnippet"`));
    assert.equal(page.split(`data-snippet="widget"`).length, 2, "the code once on the page");
    assert.ok(page.includes(site.publicKey) && !page.includes("adminKeyHash"));
    assert.ok(!page.includes(site.adminKey));

    const patch = (headers: Record<string, string>) =>
      t.call(`/api/admin/sites/${site.id}`, {
        method: "PATCH",
        headers: { Cookie: cookie, "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ externalKnowledge: true }),
      });
    const foreignOrigins: Record<string, string>[] = [{}, { Origin: "https://evil.example" }];
    for (const headers of foreignOrigins) {
      const res = await patch(headers);
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error.code, "ORIGIN_NOT_ALLOWED");
    }
    const ok = await patch({ Origin: ORIGIN });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).site.settings.externalKnowledge, true);
    // A safe read needs no Origin; another site stays out of reach; operator calls stay refused.
    const usage = await t.call(`/api/admin/sites/${site.id}/usage`, {
      headers: { Cookie: cookie },
    });
    assert.equal(usage.status, 200);
    await usage.body?.cancel();
    const foreign = await t.call(`/api/admin/sites/${other.id}`, { headers: { Cookie: cookie } });
    assert.equal(foreign.status, 404);
    await foreign.body?.cancel();
    const create = await t.call("/api/admin/sites", {
      method: "POST",
      headers: { Cookie: cookie, Origin: ORIGIN, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "x", plan: "free" }),
    });
    assert.equal((await create.json()).error.code, "OPERATOR_ONLY");
  } finally {
    t.close();
  }
});

Deno.test("dashboard - a forged, expired, signed-out or rotated-out session no longer works", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  try {
    const site = await createSite(t, "basic");
    const isSignedIn = async (cookie: string) => {
      const page = await (await t.call("/dashboard", { headers: { Cookie: cookie } })).text();
      return page.includes('data-island="KeysPanel"');
    };
    const cookie = await session(t, site.adminKey);
    assert.ok(await isSignedIn(cookie));
    const [id, sig] = cookie.split("=")[1].split(".");
    assert.ok(
      !(await isSignedIn(
        `sitesearch_session=${id}.${sig.replace(/^./, (c) => c === "A" ? "B" : "A")}`,
      )),
    );
    const forged = await t.call(`/api/admin/sites/${site.id}`, {
      headers: { Cookie: `sitesearch_session=${id}.${"A".repeat(43)}` },
    });
    assert.equal((await forged.json()).error.code, "MISSING_API_KEY");

    clock.advance(8 * 3600_000 + 1000);
    assert.ok(!(await isSignedIn(cookie)), "expired");

    const second = await session(t, site.adminKey);
    const foreignOut = await t.call("/dashboard/signout", {
      method: "POST",
      headers: { Cookie: second, Origin: "https://evil.example" },
      redirect: "manual",
    });
    assert.equal(foreignOut.status, 403);
    await foreignOut.body?.cancel();
    assert.ok(await isSignedIn(second));
    const out = await t.call("/dashboard/signout", {
      method: "POST",
      headers: { Cookie: second, Origin: ORIGIN },
      redirect: "manual",
    });
    await out.body?.cancel();
    assert.equal(out.status, 303);
    assert.match(out.headers.get("set-cookie")!, /sitesearch_session=;.*Max-Age=0/);
    assert.ok(!(await isSignedIn(second)), "signed out: the old cookie is dead");

    const third = await session(t, site.adminKey);
    const rotated = await t.call(
      `/api/admin/sites/${site.id}/keys/rotate`,
      admin(site.adminKey, { key: "admin" }),
    );
    assert.equal(rotated.status, 200);
    const { adminKey } = await rotated.json();
    assert.ok(!(await isSignedIn(third)), "the admin key it signed in with was rotated");
    assert.ok(await isSignedIn(await session(t, adminKey)));
  } finally {
    t.close();
  }
});

Deno.test("dashboard - the operator signs in to every site, and opens one by id", async () => {
  const t = await startApp();
  try {
    const a = await createSite(t, "basic", "Alpha Site");
    await createSite(t, "pro", "Beta Site");
    const cookie = await session(t, OPERATOR);
    const page = await (await t.call("/dashboard", { headers: { Cookie: cookie } })).text();
    assert.match(page, /<h1>All sites<\/h1>/);
    assert.ok(page.includes('data-island="SitesAdmin"'));
    assert.ok(page.includes("Alpha Site") && page.includes("Beta Site"));
    const one = await (await t.call(`/dashboard?site=${a.id}`, { headers: { Cookie: cookie } }))
      .text();
    assert.match(one, /<h1>Alpha Site<\/h1>/);
    const none = await t.call("/dashboard?site=site_nope", { headers: { Cookie: cookie } });
    assert.equal(none.status, 404);
    await none.body?.cancel();
  } finally {
    t.close();
  }
});

Deno.test("dashboard - an operator session ends when the operator token changes", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const before = await startApp({ kvPath: path });
  const cookie = await session(before, OPERATOR);
  const view = async (t: TestApp) => {
    const res = await t.call("/dashboard", { headers: { Cookie: cookie } });
    return await res.text();
  };
  assert.match(await view(before), /All sites/, "signed in");
  before.close();
  // The operator sets a new token (a restart with SITESEARCH_OPERATOR_TOKEN changed).
  const after = await startApp({ kvPath: path, operatorToken: "op_rotated_token_for_test" });
  try {
    assert.doesNotMatch(await view(after), /All sites/);
    assert.match(await view(after), /action="\/dashboard\/session"/, "back to the sign-in form");
    const api = await after.call("/api/admin/sites", { headers: { Cookie: cookie } });
    assert.equal(api.status, 401);
    await api.body?.cancel();
  } finally {
    after.close();
    await Deno.remove(path);
  }
});
