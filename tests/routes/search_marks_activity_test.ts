/**
 * Work that runs only while no visitor searches (the deep warm-up, a pass, a thorough release:
 * lib/search/activity.ts) stands aside from a search's first step, not from its index read: a
 * restarted server's first search otherwise waited behind warm-up slices for its key, quota and
 * levers reads, each a KV round trip (over HTTP, a restart spent 65 ms on them where 12 suffice).
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { SEARCH_QUIET_MS, searchesPaused } from "../../lib/search/mod.ts";
import { OPERATOR } from "../helpers.ts";

Deno.test("a search counts as activity from its first KV read, before its index is touched", async () => {
  const raw = await Deno.openKv(":memory:");
  let hold: PromiseWithResolvers<void> | null = null;
  const reached = Promise.withResolvers<void>();
  // Reads wait while `hold` is set: the search is caught at its first round trip.
  const kv = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get" && prop !== "getMany") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        if (hold) {
          reached.resolve();
          await hold.promise;
        }
        return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  const { app, services: s } = createApp({ kv, operatorToken: OPERATOR, log: () => {} });
  try {
    const { site, publicKey } = await s.sites.create({ name: "Busy", plan: "free" });
    await s.pages.upsert(
      site.id,
      { url: "/kettle", title: "Kettle", body: "A quiet kettle." },
      100,
    );
    await new Promise((r) => setTimeout(r, SEARCH_QUIET_MS + 50));
    assert.ok(searchesPaused(), "no search for a quiet spell: background work may run");

    hold = Promise.withResolvers();
    const answered = app.fetch(new Request(`http://x/api/search?key=${publicKey}&q=kettle`));
    await reached.promise;
    assert.ok(!searchesPaused(), "a search waiting on its first read holds background work back");
    const release = hold;
    hold = null;
    release.resolve();
    const res = await answered;
    assert.equal(res.status, 200);
    assert.equal((await res.json()).meta.found, 1);
  } finally {
    raw.close();
  }
});
