/**
 * A site's first search after a quiet spell (lib/usecases/search_site.ts): the quota's refill,
 * the index's version check and the levers' check (or a read of the change marks) are each a KV
 * round trip; the last two run beside the refill, not after it, and a search the refill refuses
 * leaves nothing behind.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { manualClock, OPERATOR } from "../helpers.ts";

/** A KV whose quota refill reads (the site beside its counters) wait while `hold` is on. */
function gatedKv(kv: Deno.Kv) {
  const state = {
    hold: false,
    held: Promise.withResolvers<void>(),
    release: Promise.withResolvers<void>(),
    /** Keys read while a refill read was held. */
    readMeanwhile: [] as Deno.KvKey[][],
    waiting: false,
  };
  const isRefill = (keys: Deno.KvKey[]) => keys[0]?.[0] === "site" && keys[1]?.[0] === "qmin";
  const proxy = new Proxy(kv, {
    get(target, prop) {
      if (prop === "getMany") {
        return async (keys: Deno.KvKey[], opts?: { consistency?: Deno.KvConsistencyLevel }) => {
          if (state.hold && isRefill(keys)) {
            state.waiting = true;
            state.held.resolve();
            await state.release.promise;
            state.waiting = false;
          } else if (state.waiting) state.readMeanwhile.push(keys);
          return await target.getMany(keys, opts);
        };
      }
      if (prop === "get") {
        return (key: Deno.KvKey, opts?: { consistency?: Deno.KvConsistencyLevel }) => {
          if (state.waiting) state.readMeanwhile.push([key]);
          return target.get(key, opts);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, state };
}

async function setup() {
  const raw = await Deno.openKv(":memory:");
  const gated = gatedKv(raw);
  const clock = manualClock(Date.now());
  const { app, services: s } = createApp({
    kv: gated.kv,
    clock,
    operatorToken: OPERATOR,
    log: () => {},
  });
  const { site, publicKey } = await s.sites.create({ name: "Quiet", plan: "free" });
  await s.pages.upsert(site.id, { url: "/kettle", title: "Kettle", body: "A quiet kettle." }, 100);
  const get = async (q: string, key = publicKey) => {
    const res = await app.fetch(new Request(`http://x/api/search?key=${key}&q=${q}`));
    return { status: res.status, body: await res.json() };
  };
  assert.equal((await get("kettle")).status, 200); // index, levers and quota read once
  return {
    s,
    site,
    get,
    gated: gated.state,
    /** A quiet spell: the levers and the index are checked again, the quota refills. */
    quiet() {
      clock.advance(60_000);
      s.quota.forget(site.id);
    },
    async close() {
      await s.close();
      raw.close();
    },
  };
}

Deno.test("quiet spell - a site's first search after one reads its index version and levers while the quota refills", async () => {
  const t = await setup();
  try {
    t.quiet();
    t.gated.hold = true;
    const search = t.get("kettle");
    await t.gated.held.promise; // the refill's read is out
    await new Promise((r) => setTimeout(r, 50)); // time for any read that does not wait for it
    const keys = t.gated.readMeanwhile.flat().map((k) => String(k[0]));
    t.gated.release.resolve();
    const res = await search;
    assert.equal(res.status, 200);
    assert.equal(res.body.results[0]?.url, "/kettle");
    assert.ok(keys.includes("pagever"), `the index version was read meanwhile: ${keys}`);
    // Their heads, or the change marks that renew them (lib/storage/change_marks.ts).
    assert.ok(
      keys.includes("levers") || keys.includes("changed"),
      `the levers were checked meanwhile: ${keys}`,
    );
  } finally {
    await t.close();
  }
});

Deno.test("quiet spell - a key revoked meanwhile is refused by the refill, and the site's next searches are answered as usual", async () => {
  const t = await setup();
  try {
    const rotated = await t.s.sites.rotate(t.site.id, "public");
    t.quiet();
    // The old key is still cached as the site's for a while: the refill's fresh read refuses it.
    const old = await t.get("kettle");
    assert.equal(old.status, 401);
    assert.equal(old.body.error.code, "INVALID_API_KEY");
    t.quiet();
    const fresh = await t.get("kettle", rotated.key);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.results[0]?.url, "/kettle");
  } finally {
    await t.close();
  }
});
