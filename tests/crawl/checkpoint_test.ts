/**
 * A crawl's checkpoint (lib/crawl/checkpoint.ts, runner.ts) against a runner killed at a
 * chosen point: its writes stop there, another instance on the same KV takes the lapsed
 * lease, and the job must end with every page stored once and counted once. The kill is
 * made from outside the product: the dead runner's store or KV commits never return.
 */
import assert from "node:assert/strict";
import { LEASE_LAPSE_MS, startCrawlJob, sweepCrawls } from "../../lib/crawl/jobs.ts";
import type { CrawlJob } from "../../lib/crawl/job_record.ts";
import { createSite, startApp, type TestApp } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

const until = async (what: string, ok: () => Promise<boolean> | boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const record = async (t: TestApp, site: string, job: string) =>
  (await t.kv.get<CrawlJob>(["crawljob", site, job])).value!;

const storedPaths = async (t: TestApp, site: string) => {
  const paths: string[] = [];
  for await (const p of t.services.pages.metas(site)) paths.push(p.url);
  return paths.sort();
};

/**
 * Commits of `t`'s KV from `kill()` on never return (until `bury()`, which fails them): the
 * instance writes nothing more, as if killed. `gate` may hold a commit first, or answer
 * "last": that commit lands, and the instance dies right after it.
 */
function killable(
  t: TestApp,
  gate: (op: { marks: number }) => Promise<"last" | void> | "last" | void = () => {},
) {
  const dead = Promise.withResolvers<Deno.KvCommitResult | Deno.KvCommitError>();
  let killed = false;
  const atomic = t.kv.atomic.bind(t.kv);
  t.kv.atomic = () => {
    const op = atomic();
    const seen = { marks: 0 };
    const set = op.set.bind(op);
    op.set = (key, value, options) => {
      if (key[0] === "crawlurl" || key[0] === "crawlcut") seen.marks++;
      return set(key, value, options);
    };
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (killed) return dead.promise;
      const last = (await gate(seen)) === "last";
      if (killed) return dead.promise;
      killed ||= last;
      return commit();
    };
    return op;
  };
  return {
    kill: () => void (killed = true),
    get killed() {
      return killed;
    },
    bury: () => dead.resolve({ ok: false }),
  };
}

/** A second instance, its clock past the lease's lapse, takes the job and runs it to its end. */
async function takeOver(path: string, done: Promise<CrawlJob>, jobId: string) {
  const t2 = await startApp({
    kvPath: path,
    crawl: CRAWL,
    clock: () => Date.now() + LEASE_LAPSE_MS + 5_000,
  });
  assert.deepEqual(await sweepCrawls(t2.services), [jobId], "the lapsed lease is taken");
  return { t2, job: await done };
}

for (const when of ["before", "after"] as const) {
  Deno.test(`crawl checkpoint - a runner killed while a page's write is in flight (${when} it commits): the next instance stores the page and counts it once`, async () => {
    const site = serveSite(
      new Map([
        ["/", html("Start", `<a href="/a">a</a> <a href="/b">b</a>`)],
        ["/a", html("Page A", "<p>Alpha kettles.</p>")],
        ["/b", html("Page B", "<p>Beta kettles.</p>")],
      ]),
    );
    const path = await Deno.makeTempFile({ suffix: ".kv" });
    const t1 = await startApp({ kvPath: path, crawl: CRAWL });
    const instance = killable(t1);
    // /b's write in the first instance never returns, landed or not.
    const killed = Promise.withResolvers<never>();
    killed.promise.catch(() => {}); // failed at the end, whoever still waits on it
    let inFlightAt = 0;
    const upsert = t1.services.pages.upsert.bind(t1.services.pages);
    t1.services.pages.upsert = async (siteId, input, max) => {
      if (input.url !== "/b") return upsert(siteId, input, max);
      if (when === "after") await upsert(siteId, input, max);
      inFlightAt = Date.now();
      return killed.promise;
    };
    let t2: TestApp | null = null;
    try {
      const s = await createSite(t1, "pro");
      const started = await startCrawlJob(t1.services, (await t1.services.sites.get(s.id))!, {
        url: `${site.origin}/`,
      });
      // The runner saves a checkpoint while /b is in flight (taken a moment before its
      // commit's heartbeat), then says nothing more.
      const saved = async () => (await record(t1, s.id, started.job.id)).heartbeatAt;
      await until(
        "a checkpoint with /b in flight",
        async () => inFlightAt > 0 && await saved() > inFlightAt + 100,
      );
      instance.kill();
      const taken = await takeOver(path, started.done, started.job.id);
      t2 = taken.t2;
      const { job } = taken;
      assert.equal(job.status, "done", JSON.stringify(job));
      assert.deepEqual(await storedPaths(t2, s.id), ["/", "/a", "/b"], "every page stored");
      // A page written before the kill (/b "after", or one finished after the checkpoint) is
      // found unchanged; the others are indexed: each page once.
      const { indexed, unchanged } = job.counts;
      assert.equal(indexed + unchanged, 3, JSON.stringify(job.counts));
      assert.equal(job.counts.skipped, 0, `no page is its own duplicate: ${JSON.stringify(job)}`);
    } finally {
      killed.reject(new Error("killed"));
      instance.bury();
      await new Promise((r) => setTimeout(r, 100)); // the dead runner's crawl unwinds
      t1.close();
      t2?.close();
      await site.close();
      await Deno.remove(path);
    }
  });
}

Deno.test("crawl checkpoint - a runner killed between the commits of a checkpoint too large for one leaves nothing of it: the next instance counts every page and URL once", async () => {
  // /a lists 3000 other sites' pages before /b: one checkpoint of thousands of marks, with
  // /b's after them, so it takes several commits.
  const away = Array.from({ length: 3000 }, (_, i) => `<a href="http://o${i}.example/">o</a>`);
  const routes = () =>
    new Map([
      ["/", html("Start", `<a href="/a">a</a>`)],
      ["/a", html("Page A", `<p>Alpha kettles.</p>${away.join("")}<a href="/b">b</a>`)],
      ["/b", html("Page B", "<p>Beta kettles.</p>")],
    ]);
  // The yardstick: the same crawl in one piece.
  const ref = serveSite(routes());
  const t0 = await startApp({ crawl: CRAWL });
  const s0 = await createSite(t0, "pro");
  const want = await (await startCrawlJob(t0.services, (await t0.services.sites.get(s0.id))!, {
    url: `${ref.origin}/`,
  })).done;
  t0.close();
  await ref.close();
  assert.equal(want.status, "done");

  const site = serveSite(routes());
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  // Paced, so the first checkpoint (at 1 s) holds the start page and little more.
  const t1 = await startApp({ kvPath: path, crawl: { ...CRAWL, delayMs: 700 } });
  // The first instance's checkpoints are held until the whole crawl is in one; then the
  // first commit of that one lands, and the instance dies before the next.
  const hold = Promise.withResolvers<void>();
  let held = 0;
  const instance = killable(t1, async ({ marks }) => {
    if (!marks) return;
    // The checkpoint held first lands whole (it was taken before /a was crawled).
    if (held++ === 0) return await hold.promise;
    if (marks >= 100) return "last";
  });
  let t2: TestApp | null = null;
  try {
    const s = await createSite(t1, "pro");
    const started = await startCrawlJob(t1.services, (await t1.services.sites.get(s.id))!, {
      url: `${site.origin}/`,
    });
    await until("every page stored", async () => (await storedPaths(t1, s.id)).length === 3);
    await new Promise((r) => setTimeout(r, 300)); // the last task marks itself done
    hold.resolve();
    await until("the first commit of the large checkpoint", () => instance.killed);
    const taken = await takeOver(path, started.done, started.job.id);
    t2 = taken.t2;
    const { job } = taken;
    assert.equal(job.status, "done", JSON.stringify(job));
    assert.deepEqual(await storedPaths(t2, s.id), ["/", "/a", "/b"], "every page stored");
    const { counts } = job;
    // Pages crawled again after the kill are found unchanged: each is counted once.
    assert.equal(counts.indexed + counts.unchanged, want.counts.indexed, JSON.stringify(counts));
    for (const k of ["discovered", "skipped", "failed", "removed"] as const) {
      assert.equal(counts[k], want.counts[k], `${k}: ${JSON.stringify(counts)}`);
    }
    assert.deepEqual(job.reasons, want.reasons);
    for await (const e of t2.kv.list({ prefix: ["crawlcut", s.id] })) assert.fail(String(e.key));
  } finally {
    instance.bury();
    await new Promise((r) => setTimeout(r, 100));
    t1.close();
    t2?.close();
    await site.close();
    await Deno.remove(path);
  }
});
