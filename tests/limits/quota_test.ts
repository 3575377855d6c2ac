import assert from "node:assert/strict";
import { minuteKey } from "../../lib/limits/reservations.ts";
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

/** The site's counted searches this minute and month, as the usage endpoint reports them. */
async function used(
  t: Awaited<ReturnType<typeof startApp>>,
  site: { id: string; adminKey: string },
) {
  const res = await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey));
  const body = await res.json();
  return { minute: body.minute.used as number, month: body.month.used as number };
}

const QUESTION = "how long does shipping to germany usually take?";

Deno.test("quota - a question typed under one session counts as one search, also past a full minute", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "free");
  await putPages(t, site, numberedPages(3));
  const session = "live_3f9c2a7b";
  // Every prefix from three characters on: far more than the widget sends.
  const asks = [3, 8, 13, 18, 22, 30, 38, 47].map((n) => QUESTION.slice(0, n));
  for (const q of asks) {
    const r = await search(t, site.publicKey, `q=${encodeURIComponent(q)}&session=${session}`);
    assert.equal(r.status, 200, q);
  }
  assert.deepEqual(await used(t, site), { minute: 1, month: 1 });
  // Other visitors fill the minute; the question's last refinement still gets its answer.
  for (let i = 0; i < 29; i++) {
    assert.equal((await search(t, site.publicKey, "q=widget")).status, 200);
  }
  assert.equal((await search(t, site.publicKey, "q=widget")).status, 429);
  const last = await search(
    t,
    site.publicKey,
    `q=${encodeURIComponent(QUESTION)}&session=${session}`,
  );
  assert.equal(last.status, 200);
  assert.deepEqual(await used(t, site), { minute: 30, month: 30 });
  // A query that is not a refinement counts (and is refused, the minute being full).
  const other = await search(t, site.publicKey, `q=widget&session=${session}`);
  assert.equal(other.body.error.code, "SEARCH_RATE_LIMIT_EXCEEDED");
  t.close();
});

Deno.test("quota - 1,000 distinct queries under one session id are held to the per-minute limit", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "free");
  const statuses: number[] = [];
  for (let i = 0; i < 1000; i += 50) {
    const wave = await Promise.all(
      Array.from(
        { length: 50 },
        (_, j) => search(t, site.publicKey, `q=item${i + j}x&session=one_session_for_all`),
      ),
    );
    statuses.push(...wave.map((r) => r.status));
  }
  assert.equal(statuses.filter((s) => s === 200).length, 30);
  assert.equal(statuses.filter((s) => s === 429).length, 970);
  assert.deepEqual(await used(t, site), { minute: 30, month: 30 });
  t.close();
});

Deno.test("quota - refinements ride on a counted search at most 12 at a time and 60 s long", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  const site = await createSite(t, "free");
  // 1,000 queries that each refine the one before: one answer in thirteen is counted.
  let ok = 0;
  for (let i = 0; i < 1000; i++) {
    const q = "a".repeat((i % 150) + 1);
    if ((await search(t, site.publicKey, `q=${q}&session=chain_session_1`)).status === 200) ok++;
  }
  assert.equal(ok, 30 * 13);
  assert.deepEqual(await used(t, site), { minute: 30, month: 30 });
  // A session's refinements end with its minute of life.
  clock.advance(60_000);
  const s2 = "chain_session_2";
  await search(t, site.publicKey, `q=shipping&session=${s2}`);
  clock.advance(59_000);
  await search(t, site.publicKey, `q=shipping+to&session=${s2}`);
  assert.equal((await used(t, site)).month, 31);
  clock.advance(1_000);
  await search(t, site.publicKey, `q=shipping+to+germany&session=${s2}`);
  assert.equal((await used(t, site)).month, 32);
  t.close();
});

Deno.test("quota - two app instances on one KV file count one session's 100 concurrent refinements exactly", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const clock = manualClock();
  const a = await startApp({ kvPath: path, clock });
  const b = await startApp({ kvPath: path, clock });
  const site = await createSite(a, "free");
  const results = await Promise.all(
    Array.from(
      { length: 100 },
      (_, i) => search(i % 2 ? a : b, site.publicKey, "q=shipping&session=shared_session"),
    ),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 100);
  // One counted search per thirteen answers: 100 = 7 × 13 + 9.
  assert.deepEqual(await used(a, site), { minute: 8, month: 8 });
  a.close();
  b.close();
  await Deno.remove(path);
});

Deno.test("quota - a malformed session id is refused as INVALID_PARAMETER", async () => {
  const t = await startApp({ clock: manualClock() });
  const site = await createSite(t, "free");
  for (const bad of ["short", "x".repeat(65), "has%20space", "a<b>cdefgh"]) {
    const r = await search(t, site.publicKey, `q=x&session=${bad}`);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.error.code, "INVALID_PARAMETER");
    assert.equal(r.body.error.param, "session");
  }
  const twice = await search(t, site.publicKey, "q=x&session=abcdefgh&session=abcdefgi");
  assert.equal(twice.body.error.param, "session");
  assert.deepEqual(await used(t, site), { minute: 0, month: 0 });
  t.close();
});

Deno.test("quota - a revoked key stops at once where it was rotated and within 1 s on an instance holding a block", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const a = await startApp({ kvPath: path });
  const b = await startApp({ kvPath: path });
  const site = await createSite(a, "enterprise");
  // Quick searches on both: each holds a reserved block and the site as read with it.
  for (let i = 0; i < 12; i++) {
    for (const t of [a, b]) assert.equal((await search(t, site.publicKey, "q=x")).status, 200);
  }
  const res = await a.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "public", graceSeconds: 0 }),
  );
  const { publicKey } = await res.json();
  const rotated = performance.now();
  assert.equal((await search(a, site.publicKey, "q=x")).body.error.code, "INVALID_API_KEY");
  let status = 200;
  while (status === 200 && performance.now() - rotated < 2_000) {
    status = (await search(b, site.publicKey, "q=x")).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(status, 401);
  assert.ok(performance.now() - rotated < 1_200, "within the 1 s the site read is trusted");
  for (const t of [a, b]) assert.equal((await search(t, publicKey, "q=x")).status, 200);
  a.close();
  b.close();
  await Deno.remove(path);
});

Deno.test("quota - usage reports searches used, not units reserved, on one instance and across two", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const clock = manualClock();
  const a = await startApp({ kvPath: path, clock });
  const b = await startApp({ kvPath: path, clock });
  const site = await createSite(a, "pro");
  for (let i = 0; i < 5; i++) assert.equal((await search(a, site.publicKey, "q=x")).status, 200);
  assert.deepEqual(await used(a, site), { minute: 5, month: 5 });
  for (let i = 0; i < 7; i++) assert.equal((await search(b, site.publicKey, "q=x")).status, 200);
  // B holds what it reserved beyond its 7 for a moment: usage waits for it to come back.
  assert.deepEqual(await used(a, site), { minute: 12, month: 12 });
  a.close();
  b.close();
  await Deno.remove(path);
});

Deno.test("quota - Services.close gives back the units an instance reserved, and another admits them", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const clock = manualClock();
  const a = await startApp({ kvPath: path, clock });
  const b = await startApp({ kvPath: path, clock });
  const site = await createSite(a, "free");
  const counter = async () =>
    (await b.kv.get<number>(minuteKey(site.id, Math.floor(clock() / 60_000)))).value ?? 0;
  // Quick searches on A until it holds units it has not used (its blocks grow).
  let n = 0;
  while (n < 12 && await counter() <= n) {
    assert.equal((await search(a, site.publicKey, "q=x")).status, 200);
    n++;
  }
  assert.ok(await counter() > n, "A holds units it has not used");
  await a.services.close(); // what main.ts does on SIGTERM
  assert.equal(await counter(), n);
  const results = await Promise.all(
    Array.from({ length: 40 }, () => search(b, site.publicKey, "q=x")),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 30 - n);
  a.close();
  b.close();
  await Deno.remove(path);
});
