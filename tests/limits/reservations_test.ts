/**
 * Quota reservations: instances admit from blocks reserved in KV, never past the limit, and
 * give back what they did not use. Several SearchQuota on one KV file stand for instances.
 */
import assert from "node:assert/strict";
import { DomainError } from "../../lib/errors.ts";
import { statusOf } from "../../lib/http/errors.ts";
import type { Admitted, Verify } from "../../lib/limits/block.ts";
import { type QuotaTiming, SearchQuota } from "../../lib/limits/quota.ts";
import { minuteKey, monthKey } from "../../lib/limits/reservations.ts";
import { SiteStore } from "../../lib/sites/store.ts";
import { resilientKv } from "../../lib/storage/kv_retry.ts";
import { minuteWindow, monthWindow } from "../../lib/clock.ts";
import type { LimitOverrides, PlanName } from "../../lib/limits/plans.ts";
import { manualClock } from "../helpers.ts";

const anyKey: Verify = (site) =>
  site ? null : new DomainError("INVALID_API_KEY", "The search key is not valid.");

/** `n` instances on one KV file, a site with the given plan and limits, and a shared clock. */
async function instances(
  n: number,
  plan: PlanName,
  limits: LimitOverrides = {},
  timing: Partial<QuotaTiming> = {},
) {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const clock = manualClock();
  // As services.ts opens them: a write that meets another connection's lock (one opening the
  // fresh file) is retried, as it is in the service.
  const kvs = (await Promise.all(Array.from({ length: n }, () => Deno.openKv(path))))
    .map((kv) => resilientKv(kv, () => {}));
  const sites = new SiteStore(kvs[0], clock);
  const { site } = await sites.create({ name: "Shared", plan });
  await sites.update(site.id, (s) => ({ ...s, limits }));
  const quotas = kvs.map((kv) => new SearchQuota(kv, clock, timing));
  const counters = async () => {
    const now = clock();
    const [m, M] = await kvs[0].getMany<[number, number]>([
      minuteKey(site.id, minuteWindow(now).id),
      monthKey(site.id, monthWindow(now).id),
    ]);
    return { minute: m.value ?? 0, month: M.value ?? 0 };
  };
  return {
    site,
    sites,
    clock,
    quotas,
    kv: kvs[0],
    counters,
    async close() {
      for (const q of quotas) q.discard();
      for (const kv of kvs) kv.close();
      await Deno.remove(path);
    },
  };
}

/** Statuses of admissions: 200, or the refusing error's status. */
async function admitAll(calls: (() => Admitted | Promise<Admitted>)[]) {
  return await Promise.all(calls.map(async (call) => {
    try {
      await call();
      return 200;
    } catch (err) {
      if (err instanceof DomainError) return statusOf(err);
      throw err;
    }
  }));
}

const count = (xs: number[], x: number) => xs.filter((y) => y === x).length;

/** Searches one at a time on `q` until it holds reserved units it has not used; how many. */
async function untilHolding(t: Awaited<ReturnType<typeof instances>>, q: SearchQuota) {
  for (let n = 1; n <= 12; n++) {
    await q.admit(t.site.id, anyKey);
    if ((await t.counters()).minute > n) return n;
  }
  throw new Error("no block held after 12 searches");
}

Deno.test("quota reservations - 100 concurrent searches on one instance against a limit of 30 admit exactly 30", async () => {
  const t = await instances(1, "free");
  try {
    const statuses = await admitAll(
      Array.from({ length: 100 }, () => () => t.quotas[0].admit(t.site.id, anyKey)),
    );
    assert.equal(count(statuses, 200), 30);
    assert.equal(count(statuses, 429), 70);
    assert.deepEqual(await t.quotas[0].usage(t.site.id), { minute: 30, month: 30 });
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - three instances on one KV admit exactly 30 of 100 concurrent searches, round after round", async () => {
  const t = await instances(3, "free");
  try {
    for (let round = 0; round < 3; round++) {
      // Uneven shares, so one instance runs dry while others still hold units.
      const statuses = await admitAll(Array.from({ length: 100 }, (_, i) => () => {
        const q = t.quotas[i % 7 === 0 ? 0 : i % 3 === 0 ? 1 : 2];
        return q.admit(t.site.id, anyKey);
      }));
      assert.equal(count(statuses, 200), 30, `round ${round}`);
      assert.equal(count(statuses, 429), 70, `round ${round}`);
      assert.deepEqual(await t.quotas[1].usage(t.site.id), { minute: 30, month: 30 * (round + 1) });
      t.clock.advance(60_000);
    }
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - the month limit holds exactly across two instances and over minutes", async () => {
  const t = await instances(2, "pro", { searchesPerMinute: 20, searchesPerMonth: 30 });
  const wave = () =>
    admitAll(
      Array.from({ length: 100 }, (_, i) => () => t.quotas[i % 2].admit(t.site.id, anyKey)),
    );
  try {
    assert.equal(count(await wave(), 200), 20); // the minute's limit first
    t.clock.advance(60_000); // a new minute: only the month limit is left to stop them
    assert.equal(count(await wave(), 200), 10);
    t.clock.advance(60_000);
    assert.equal(count(await wave(), 200), 0);
    await assert.rejects(
      async () => await t.quotas[0].admit(t.site.id, anyKey),
      (err: DomainError) => err.code === "MONTHLY_SEARCH_QUOTA_EXCEEDED",
    );
    assert.deepEqual(await t.quotas[0].usage(t.site.id), { minute: 0, month: 30 });
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - units an idle instance reserved come back, and another instance admits the rest", async () => {
  const t = await instances(2, "free");
  const [a, b] = t.quotas;
  try {
    // Quick searches on A: its blocks grow, so it holds units it has not used.
    const used = await untilHolding(t, a);
    // B needs more than is left in KV: it waits for A's units instead of refusing.
    const statuses = await admitAll(
      Array.from({ length: 40 }, () => () => b.admit(t.site.id, anyKey)),
    );
    assert.equal(count(statuses, 200), 30 - used);
    assert.deepEqual(await t.counters(), { minute: 30, month: 30 });
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - units given back between a refill's two reads are admitted, not refused as used", async () => {
  const t = await instances(2, "free");
  const [a] = t.quotas;
  try {
    const used = await untilHolding(t, a);
    // B's KV lets A give back everything it holds just before B lists the leases: B's
    // exchange saw the counters full with A holding units, its listing sees no lease.
    let hooked = false;
    const kv = new Proxy(t.kv, {
      get(target, prop) {
        if (prop !== "list") {
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (selector: Deno.KvListSelector, opts?: Deno.KvListOptions) => {
          const first = !hooked && "prefix" in selector && selector.prefix[0] === "qlease";
          if (first) hooked = true;
          return (async function* () {
            if (first) await a.close();
            yield* target.list(selector, opts);
          })();
        };
      },
    });
    const b = new SearchQuota(kv, t.clock);
    const statuses = await admitAll(
      Array.from({ length: 40 }, () => () => b.admit(t.site.id, anyKey)),
    );
    assert.ok(hooked, "the leases were listed after a full exchange");
    assert.equal(count(statuses, 200), 30 - used, JSON.stringify(statuses));
    b.discard();
  } finally {
    await t.close();
  }
});

/** Milliseconds until the counters fall back to `used` (what was admitted), polled. */
async function untilGivenBack(
  t: Awaited<ReturnType<typeof instances>>,
  used: number,
  maxMs = 3_000,
) {
  const started = performance.now();
  while ((await t.counters()).minute > used && performance.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(await t.counters(), { minute: used, month: used });
  return performance.now() - started;
}

Deno.test("quota reservations - an idle block goes back to KV by itself within a few tenths of a second", async () => {
  const t = await instances(1, "free");
  try {
    const used = await untilHolding(t, t.quotas[0]);
    assert.ok(await untilGivenBack(t, used) < 900, "given back after about 0.2 s idle");
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - an ample block (a sliver of what is left) is kept through re-reads and idle moments, read again ahead of need, then goes back", async () => {
  const t = await instances(1, "enterprise", { searchesPerMinute: 1_000_000 }, {
    ampleIdleMs: 3_000,
  });
  const [a] = t.quotas;
  try {
    let used = await untilHolding(t, a);
    // The first take wrote a lease long enough to keep the units while idle: past the 1 s the
    // site's read is trusted, the next search reads it again and writes nothing, the first
    // time as every time after; the units held are the ones reserved.
    const held = (await t.counters()).minute;
    const commits = a.stats.commits;
    for (let i = 0; i < 2; i++) {
      const reads = a.stats.batches + a.stats.renewals;
      await new Promise((r) => setTimeout(r, 1_100));
      await a.admit(t.site.id, anyKey);
      used++;
      assert.ok(
        a.stats.batches + a.stats.renewals > reads,
        "the site read again, or renewed by its change mark (ahead of need, or now)",
      );
      assert.equal(a.stats.commits, commits, `re-read ${i + 1}: no commit`);
      assert.equal((await t.counters()).minute, held, "units kept, not given back and taken again");
    }
    assert.ok(held > used);
    // A site searched a moment ago is read again ahead of need: a visit 1.5 s later (past
    // the 1 s trust) is admitted at once, without waiting for KV.
    await new Promise((r) => setTimeout(r, 1_500));
    const waited = a.stats.waited;
    const admitted = a.admit(t.site.id, anyKey);
    assert.ok(!(admitted instanceof Promise), "admitted at once");
    assert.equal(a.stats.waited, waited);
    used++;
    // Idle for ampleIdleMs (or to the end of its lease): back in KV, only admissions counted.
    const back = await untilGivenBack(t, used, 6_000);
    assert.ok(back > 1_000, `kept while idle a moment (${back.toFixed(0)} ms)`);
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - a site searched steadily is read again once per trust period, never later, and no search waits for it", async () => {
  const trustMs = 400;
  const t = await instances(1, "enterprise", { searchesPerMinute: 1_000_000 });
  // When each read of the site and its counters starts (one getMany an exchange), or of the
  // change marks that renews it.
  const reads: number[] = [];
  const counted = new Proxy(t.kv, {
    get(kv, name) {
      if (name !== "getMany") return Reflect.get(kv, name);
      return (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
        if (keys.some((k) => k[0] === "site" || k[0] === "changed")) reads.push(performance.now());
        return kv.getMany(keys, options);
      };
    },
  });
  const a = new SearchQuota(counted, t.clock, { trustMs });
  try {
    const end = performance.now() + 2_000;
    while (performance.now() < end) {
      await a.admit(t.site.id, anyKey);
      await new Promise((r) => setTimeout(r, 10)); // a search every ~10 ms
    }
    const gaps = reads.slice(1).map((at, i) => at - reads[i]);
    assert.ok(gaps.length >= 3, `${reads.length} reads in 2 s`);
    // The read a block is admitted on is never older than trustMs...
    for (const gap of gaps) assert.ok(gap <= trustMs, `a read ${gap.toFixed(0)} ms after the last`);
    // ...nor renewed much before its time: KV is read once a period, not twice.
    for (const gap of gaps) {
      assert.ok(gap >= trustMs * 0.75, `a read ${gap.toFixed(0)} ms after the last`);
    }
    assert.equal(a.stats.waited, 1, "only the first search waited for KV");
  } finally {
    a.discard();
    await t.close();
  }
});

Deno.test("quota reservations - close gives back at once what an instance holds", async () => {
  const t = await instances(2, "free");
  const [a, b] = t.quotas;
  try {
    const used = await untilHolding(t, a);
    await a.close();
    assert.deepEqual(await t.counters(), { minute: used, month: used });
    const statuses = await admitAll(
      Array.from({ length: 40 }, () => () => b.admit(t.site.id, anyKey)),
    );
    assert.equal(count(statuses, 200), 30 - used);
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - units left when the minute ends go back to the month", async () => {
  const t = await instances(1, "free");
  const [a] = t.quotas;
  try {
    const used = await untilHolding(t, a);
    t.clock.advance(60_000);
    // The next search, in the new minute, settles the old block first.
    await a.admit(t.site.id, anyKey);
    assert.deepEqual(await a.usage(t.site.id), { minute: 1, month: used + 1 });
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - most searches are admitted without waiting for KV, a few round trips each hundred", async () => {
  const t = await instances(1, "enterprise");
  const [a] = t.quotas;
  try {
    let waited = 0;
    for (let i = 0; i < 500; i++) {
      const out = a.admit(t.site.id, anyKey);
      if (out instanceof Promise) waited++, await out;
    }
    const trips = a.stats.batches + a.stats.commits;
    assert.equal(a.stats.admitted, 500);
    assert.ok(waited <= 25, `${waited} of 500 waited for a refill`);
    assert.ok(trips <= 50, `${trips} KV round trips for 500 searches`);
    assert.deepEqual(await a.usage(t.site.id), { minute: 500, month: 500 });
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - a plan change made on this instance holds at once, and elsewhere within 1 s", async () => {
  const t = await instances(2, "enterprise");
  const [a, b] = t.quotas;
  try {
    for (const q of [a, b]) {
      for (let i = 0; i < 4; i++) {
        assert.equal((await q.admit(t.site.id, anyKey)).state.limits.perMinute, 600);
      }
    }
    await t.sites.update(t.site.id, (s) => ({ ...s, plan: "free" }));
    a.forget(t.site.id); // what SiteStore.onChange does on the instance that made the change
    assert.equal((await a.admit(t.site.id, anyKey)).state.limits.perMinute, 30);
    const changed = performance.now();
    let seen = 600;
    while (seen === 600 && performance.now() - changed < 1_500) {
      seen = (await b.admit(t.site.id, anyKey)).state.limits.perMinute;
      if (seen === 600) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(seen, 30);
    assert.ok(performance.now() - changed < 1_200);
  } finally {
    await t.close();
  }
});

Deno.test("quota reservations - waves of 50 concurrent searches 2 ms apart are mostly admitted at once: blocks grow to the load", async () => {
  const t = await instances(1, "enterprise", { searchesPerMinute: 1_000_000 });
  const [a] = t.quotas;
  try {
    for (let wave = 0; wave < 40; wave++) {
      const statuses = await admitAll(
        Array.from({ length: 50 }, () => () => a.admit(t.site.id, anyKey)),
      );
      assert.equal(count(statuses, 200), 50);
      await new Promise((r) => setTimeout(r, 2)); // requests come from sockets: KV replies get in
    }
    assert.equal(a.stats.admitted, 2_000);
    assert.ok(a.stats.waited <= 200, `${a.stats.waited} of 2,000 waited for a refill`);
    const trips = a.stats.batches + a.stats.commits;
    assert.ok(trips <= 100, `${trips} KV round trips for 2,000 searches`);
    assert.deepEqual(await a.usage(t.site.id), { minute: 2_000, month: 2_000 });
  } finally {
    await t.close();
  }
});

Deno.test("reservations - units given back after the site was deleted write no counters again, and the lease goes", async () => {
  // No timer gives the units back during the test: close() does, when the test says.
  const long = 60_000;
  const t = await instances(1, "pro", {}, {
    idleMs: long,
    trustMs: long,
    drainMs: long,
    ampleIdleMs: long,
    warmMs: long,
  });
  try {
    const [quota] = t.quotas;
    await quota.admit(t.site.id, anyKey); // this instance now holds a block of the site's units
    const left = async () => {
      const found: Deno.KvKey[] = [];
      for await (const e of t.kv.list({ prefix: [] })) {
        if (e.key[1] === t.site.id) found.push(e.key);
      }
      return found;
    };
    assert.ok(
      (await left()).some((k) => k[0] === "qmin"),
      "the block is counted while the site lives",
    );
    // The site and its counters are deleted while the block is held, as deleting a site does.
    await t.sites.delete(t.site);
    for (const key of await left()) await t.kv.delete(key);
    await quota.close(); // gives every unused unit back now, as its idle timer would (200 ms)
    assert.deepEqual(await left(), [], "nothing of the deleted site is written again");
  } finally {
    await t.close();
  }
});
