import assert from "node:assert/strict";
import {
  admin,
  createSite,
  manualClock,
  numberedPages,
  OPERATOR,
  putPages,
  search,
  startApp,
} from "../helpers.ts";

Deno.test("quota - the 31st search in a minute on free gets SEARCH_RATE_LIMIT_EXCEEDED with headers", async () => {
  const clock = manualClock(Date.UTC(2026, 10, 15, 12, 0, 19)); // 41 s before the minute ends
  const t = await startApp({ clock });
  const site = await createSite(t, "free");
  await putPages(t, site, numberedPages(3));
  for (let i = 0; i < 30; i++) {
    const r = await search(t, site.publicKey, "q=widget");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("RateLimit"), `"minute";r=${29 - i};t=41`);
  }
  const r = await search(t, site.publicKey, "q=widget");
  assert.equal(r.status, 429);
  assert.equal(r.body.error.code, "SEARCH_RATE_LIMIT_EXCEEDED");
  assert.equal(r.body.error.type, "rate_limit_error");
  assert.equal(r.body.error.status, 429);
  assert.equal(r.body.error.retry_after, 41);
  assert.equal(r.headers.get("Retry-After"), "41");
  assert.equal(r.headers.get("RateLimit-Policy"), `"minute";q=30;w=60, "month";q=1000;w=2592000`);
  assert.equal(r.headers.get("RateLimit"), `"minute";r=0;t=41`);
  assert.match(r.body.error.request_id, /^req_/);
  assert.equal(r.headers.get("X-Request-Id"), r.body.error.request_id);
  // The next minute admits again.
  clock.advance(41_000);
  assert.equal((await search(t, site.publicKey, "q=widget")).status, 200);
  t.close();
});

Deno.test("quota - the monthly quota answers MONTHLY_SEARCH_QUOTA_EXCEEDED with resets_at and rolls over in UTC", async () => {
  const clock = manualClock(Date.UTC(2026, 10, 30, 23, 58, 0));
  const t = await startApp({ clock });
  const site = await createSite(t, "pro");
  await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(OPERATOR, { limits: { searchesPerMonth: 3 } }),
    method: "PATCH",
  });
  for (let i = 0; i < 3; i++) {
    assert.equal((await search(t, site.publicKey, "q=anything")).status, 200);
    clock.advance(20_000); // spread over minutes so only the month limit applies
  }
  const r = await search(t, site.publicKey, "q=anything");
  assert.equal(r.status, 429);
  assert.equal(r.body.error.code, "MONTHLY_SEARCH_QUOTA_EXCEEDED");
  assert.equal(r.body.error.resets_at, "2026-12-01T00:00:00.000Z");
  const expected = Math.ceil((Date.UTC(2026, 11, 1) - clock()) / 1000);
  assert.equal(r.body.error.retry_after, expected);
  assert.equal(r.headers.get("Retry-After"), String(expected));
  assert.equal(r.headers.get("RateLimit"), `"month";r=0;t=${expected}`);
  clock.set(Date.UTC(2026, 11, 1, 0, 0, 1)); // December, UTC
  const next = await search(t, site.publicKey, "q=anything");
  assert.equal(next.status, 200);
  assert.equal(
    next.headers.get("RateLimit"),
    `"month";r=2;t=${Math.ceil((Date.UTC(2027, 0, 1) - clock()) / 1000)}`,
  );
  t.close();
});

Deno.test("quota - the per-minute window rolls over at the minute boundary", async () => {
  const clock = manualClock(Date.UTC(2026, 10, 15, 12, 0, 59, 500));
  const t = await startApp({ clock });
  const site = await createSite(t, "free");
  for (let i = 0; i < 30; i++) await search(t, site.publicKey, "q=x");
  assert.equal((await search(t, site.publicKey, "q=x")).status, 429);
  clock.advance(500); // exactly 12:01:00
  const r = await search(t, site.publicKey, "q=x");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("RateLimit"), `"minute";r=29;t=60`);
  t.close();
});

Deno.test("quota - 100 concurrent searches against a limit of 30 admit exactly 30", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "free");
  const results = await Promise.all(
    Array.from({ length: 100 }, () => search(t, site.publicKey, "q=x")),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 30);
  assert.equal(results.filter((r) => r.status === 429).length, 70);
  const usage = await (await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey)))
    .json();
  assert.equal(usage.minute.used, 30);
  assert.equal(usage.month.used, 30);
  t.close();
});

Deno.test("quota - two app instances on one KV file admit exactly 30 of 100 concurrent searches", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const clock = manualClock();
  const a = await startApp({ kvPath: path, clock });
  const b = await startApp({ kvPath: path, clock });
  const site = await createSite(a, "free");
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => search(i % 2 ? a : b, site.publicKey, "q=x")),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 30);
  assert.equal(results.filter((r) => r.status === 429).length, 70);
  a.close();
  b.close();
  await Deno.remove(path);
});

Deno.test("quota - a busy site does not use up another site's allowance", async () => {
  const t = await startApp({ clock: manualClock() });
  const busy = await createSite(t, "free");
  const calm = await createSite(t, "free");
  await Promise.all(Array.from({ length: 60 }, () => search(t, busy.publicKey, "q=x")));
  const r = await search(t, calm.publicKey, "q=x");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("RateLimit"), `"minute";r=29;t=30`);
  t.close();
});

Deno.test("quota - enterprise limits follow the site's overrides and unlimited months send no month policy", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "enterprise");
  let r = await search(t, site.publicKey, "q=x");
  assert.equal(r.headers.get("RateLimit-Policy"), `"minute";q=600;w=60`);
  await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(OPERATOR, { limits: { searchesPerMinute: 2, searchesPerMonth: 5000 } }),
    method: "PATCH",
  });
  r = await search(t, site.publicKey, "q=x");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("RateLimit-Policy"), `"minute";q=2;w=60, "month";q=5000;w=2592000`);
  assert.equal((await search(t, site.publicKey, "q=x")).status, 429);
  t.close();
});
