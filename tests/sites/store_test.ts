/** Public key rotation with a grace period, through the admin and search APIs. */
import assert from "node:assert/strict";
import { admin, createSite, manualClock, search, startApp } from "../helpers.ts";
import { SiteStore } from "../../lib/sites/store.ts";

Deno.test("keys - an old public key searches during its grace period, is reported, and then stops", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  const site = await createSite(t, "free");
  const rotate = await t.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "public", graceSeconds: 3600 }),
  );
  assert.equal(rotate.status, 200);
  const body = await rotate.json();
  const expiresAt = new Date(clock() + 3600_000).toISOString();
  assert.deepEqual(body.previousPublicKey, { key: site.publicKey, expiresAt });
  // Both keys search, and share one quota.
  assert.equal((await search(t, site.publicKey, "q=x")).status, 200);
  const fresh = await search(t, body.publicKey, "q=x");
  assert.equal(fresh.status, 200);
  assert.equal(fresh.headers.get("RateLimit"), `"minute";r=28;t=30`);
  assert.equal((await t.call(`/api/site?key=${site.publicKey}`)).status, 200);
  const view = await (await t.call(`/api/admin/sites/${site.id}`, admin(site.adminKey))).json();
  assert.deepEqual(view.site.previousPublicKey, { key: site.publicKey, expiresAt });
  assert.equal(view.site.adminKeyHash, undefined);
  // Past the grace period the old key is refused and no longer reported.
  clock.advance(3600_000);
  const old = await search(t, site.publicKey, "q=x");
  assert.equal(old.status, 401);
  assert.equal(old.body.error.code, "INVALID_API_KEY");
  assert.equal((await search(t, body.publicKey, "q=x")).status, 200);
  const later = await (await t.call(`/api/admin/sites/${site.id}`, admin(site.adminKey))).json();
  assert.equal(later.site.previousPublicKey, null);
  t.close();
});

Deno.test("keys - a second rotation ends the earlier grace period at once", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "free");
  const rotate = (body: unknown) =>
    t.call(`/api/admin/sites/${site.id}/keys/rotate`, admin(site.adminKey, body)).then((r) =>
      r.json()
    );
  const first = await rotate({ key: "public", graceSeconds: 600 });
  const second = await rotate({ key: "public", graceSeconds: 600 });
  assert.equal((await search(t, site.publicKey, "q=x")).status, 401);
  assert.equal((await search(t, first.publicKey, "q=x")).status, 200);
  assert.equal((await search(t, second.publicKey, "q=x")).status, 200);
  const third = await rotate({ key: "public", graceSeconds: 0 });
  assert.equal(third.previousPublicKey, null);
  assert.equal((await search(t, second.publicKey, "q=x")).status, 401);
  assert.equal((await search(t, third.publicKey, "q=x")).status, 200);
  t.close();
});

Deno.test("keys - a public key rotated without graceSeconds keeps working for one day", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  const site = await createSite(t, "free");
  const r = await t.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "public" }),
  );
  assert.equal(r.status, 200);
  const body = await r.json();
  const expiresAt = new Date(clock() + 86_400_000).toISOString();
  assert.deepEqual(body.previousPublicKey, { key: site.publicKey, expiresAt });
  clock.advance(86_400_000 - 1000);
  assert.equal((await search(t, site.publicKey, "q=x")).status, 200);
  clock.advance(1000);
  assert.equal((await search(t, site.publicKey, "q=x")).status, 401);
  // The admin key has no grace: left out, it rotates at once as before.
  const a = await t.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "admin" }),
  );
  assert.equal(a.status, 200);
  await a.body?.cancel();
  assert.equal((await t.call(`/api/admin/sites/${site.id}`, admin(site.adminKey))).status, 401);
  t.close();
});

Deno.test("keys - graceSeconds is validated and never applies to the admin key", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "free");
  for (
    const body of [
      { key: "public", graceSeconds: -1 },
      { key: "public", graceSeconds: 604_801 },
      { key: "public", graceSeconds: 1.5 },
      { key: "public", graceSeconds: "60" },
      { key: "admin", graceSeconds: 60 },
    ]
  ) {
    const r = await t.call(`/api/admin/sites/${site.id}/keys/rotate`, admin(site.adminKey, body));
    const err = (await r.json()).error;
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(err.code, "INVALID_PARAMETER");
    assert.equal(err.param, "graceSeconds");
  }
  const week = await t.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "public", graceSeconds: 604_800 }),
  );
  assert.equal(week.status, 200);
  await week.body?.cancel();
  assert.equal((await search(t, site.publicKey, "q=x")).status, 200);
  t.close();
});

Deno.test("site store - a cached key answers at once (no promise) within its age, read again past it", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const sites = new SiteStore(kv, clock, 2_000);
  try {
    const { site } = await sites.create({ name: "Kettles", plan: "pro" });
    const first = sites.byPublicKeyCached(site.publicKey);
    assert.ok(first instanceof Promise, "not looked up yet: read");
    assert.equal((await first)?.id, site.id);
    const cached = sites.byPublicKeyCached(site.publicKey);
    assert.ok(!(cached instanceof Promise), "looked up lately: at once");
    assert.equal(cached?.id, site.id);
    const unknown = "pk_" + "x".repeat(24);
    assert.equal(await sites.byPublicKeyCached(unknown), null);
    assert.equal(sites.byPublicKeyCached(unknown), null, "an unknown key is cached as such");
    clock.advance(2_500);
    const stale = sites.byPublicKeyCached(site.publicKey);
    assert.ok(stale instanceof Promise, "past its age: read again");
    assert.equal((await stale)?.id, site.id);
  } finally {
    kv.close();
  }
});
