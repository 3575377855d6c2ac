/**
 * Deploy's shape, checked here: main.ts run as Deno Deploy runs it (`deno run -A main.ts`, no
 * V8 flags, DENO_DEPLOY=true), several processes on one KV, stopped as Deploy stops them
 * (SIGINT, then SIGKILL 5 s later). Crawls need no KV queue, a stopped instance hands its
 * crawl on, a fresh one resumes one whose instances all died, and no answer stream is cut.
 * The crawls use a real site (Debian's python-scrapy-doc), skipped with a loud message when
 * it is missing, except under CI=true (.ci/run installs it).
 */
import assert from "node:assert/strict";
import { startCrawlJob } from "../../lib/crawl/jobs.ts";
import { createServices } from "../../lib/services.ts";
import { DOC_SITES, missingPackages, serveDir } from "../realsites/docs.ts";
import { startFakeLLM } from "../fixtures/fake_llm.ts";
import { operator, startDeployed } from "./instance.ts";

const DOC = DOC_SITES.find((d) => d.pkg === "python-scrapy-doc")!;
const missing = (await missingPackages()).includes(DOC.pkg);
const CI = Deno.env.get("CI") === "true";
if (missing && !CI) {
  console.warn(
    `\n!!! DEPLOY-SHAPE CRAWLS SKIPPED: apt-get install -y ${DOC.pkg} (or run .ci/run).\n`,
  );
}
const ignore = missing && !CI;
/** Deploy's grace between SIGINT and SIGKILL. */
const DEPLOY_GRACE_MS = 5000;
const ROOT = new URL("../../", import.meta.url).pathname;

/** Source files of the service (not tests or benchmarks). */
async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(ROOT + dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(e.name)) yield path;
  }
}

Deno.test("deploy shape - no part of the service calls the KV queue, and the KV refuses it", async () => {
  const files = ["main.ts", "app.ts"];
  for (const dir of ["lib", "routes", "scripts", "islands", "components"]) {
    for await (const f of sources(dir)) files.push(f);
  }
  const calls: string[] = [];
  for (const file of files) {
    const text = await Deno.readTextFile(ROOT + file);
    for (const m of text.matchAll(/\.\s*(enqueue|listenQueue)\s*\(/g)) {
      // A ReadableStream's controller enqueues bytes; that is no queue.
      const before = text.slice(Math.max(0, m.index - 20), m.index);
      if (m[1] === "enqueue" && /\b(controller|ctrl)\s*$/.test(before)) continue;
      calls.push(`${file}: …${before}${m[0]}`);
    }
  }
  assert.deepEqual(calls, [], "KV queue calls in the service");
  // And at run time: the KV every store uses refuses the queue, so no test could pass with one.
  const kv = await Deno.openKv(":memory:");
  const s = createServices({ kv, log: () => {} });
  assert.throws(() => s.kv.enqueue({ x: 1 }), /not available on Deno Deploy/);
  assert.throws(() => s.kv.listenQueue(() => {}), /not available on Deno Deploy/);
  assert.throws(() => s.kv.atomic().enqueue({ x: 1 }), /not available on Deno Deploy/);
  kv.close();
});

/** The paths a crawl of `start` stores in one process, uninterrupted: the yardstick. */
async function reference(start: string) {
  const kv = await Deno.openKv(":memory:");
  const s = createServices({ kv, log: () => {}, crawl: { allowLoopback: true, delayMs: 0 } });
  const { site } = await s.sites.create({ name: "Reference", plan: "enterprise" });
  const job = await (await startCrawlJob(s, site, { url: start })).done;
  const paths = new Set<string>();
  for await (const p of s.pages.metas(site.id)) paths.add(p.url);
  kv.close();
  assert.equal(job.status, "done");
  return { paths, indexed: job.counts.indexed };
}

interface Job {
  status: string;
  counts: { indexed: number; unchanged: number };
  progress: { done: number; total: number };
  error: string | null;
}

/** Creates a site and starts a crawl of `start` through `base`; its id and the job's. */
async function startCrawl(base: string, start: string) {
  const created = await operator(base, "/api/admin/sites", {
    body: { name: "Docs", plan: "enterprise" },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const siteId = (created.body.site as { id: string }).id;
  const started = await operator(base, `/api/admin/sites/${siteId}/crawl`, {
    body: { url: start },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  return { siteId, jobId: (started.body.job as { id: string }).id };
}

/** Polls the job through `base` until `until` holds (or `ms` pass). */
async function waitJob(
  base: string,
  ids: { siteId: string; jobId: string },
  until: (j: Job) => boolean,
  ms = 120_000,
): Promise<Job> {
  const deadline = Date.now() + ms;
  while (true) {
    const res = await operator(base, `/api/admin/sites/${ids.siteId}/crawl/${ids.jobId}`);
    const job = res.body as unknown as Job;
    if (until(job) || Date.now() > deadline) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The site's stored page paths, read from the shared KV file. */
async function storedPaths(kvPath: string, siteId: string) {
  const kv = await Deno.openKv(kvPath);
  const paths = new Set<string>();
  for await (const e of kv.list({ prefix: ["page", siteId] })) paths.add(e.key[2] as string);
  kv.close();
  return paths;
}

/** The job's lease holder as its record in the shared KV has it. */
async function leaseOf(kvPath: string, ids: { siteId: string; jobId: string }) {
  const kv = await Deno.openKv(kvPath);
  const e = await kv.get<{ runner: string | null }>(["crawljob", ids.siteId, ids.jobId]);
  kv.close();
  return e.value?.runner ?? null;
}

const CRAWL_ENV = { CRAWL_DELAY_MS: "40" }; // ~126 pages: several seconds, so a signal lands mid-crawl

interface DocCrawl {
  kvPath: string;
  start: string;
  want: Awaited<ReturnType<typeof reference>>;
}

/** Serves the doc site and a fresh KV folder for `fn`, with what one uninterrupted crawl stores. */
async function withDocSite(fn: (c: DocCrawl) => Promise<void>) {
  const served = serveDir(DOC.root);
  const dir = await Deno.makeTempDir();
  try {
    const start = `${served.origin}/index.html`;
    await fn({ kvPath: `${dir}/kv.sqlite`, start, want: await reference(start) });
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The job ended done with every page the uninterrupted crawl stores. */
async function assertWhole(c: DocCrawl, ids: { siteId: string }, job: Job) {
  assert.equal(job.status, "done", JSON.stringify(job));
  assert.deepEqual(
    [...await storedPaths(c.kvPath, ids.siteId)].sort(),
    [...c.want.paths].sort(),
    "every page",
  );
  assert.equal(job.progress.done, job.progress.total);
}

Deno.test({
  name:
    "deploy shape - two instances on one KV: SIGINT to the one crawling exits within 5 s, and the other takes the crawl at once and finishes it with every page",
  ignore,
  fn: () =>
    withDocSite(async (c) => {
      const { kvPath, start, want } = c;
      const a = await startDeployed({ KV_PATH: kvPath, ...CRAWL_ENV });
      let b: Awaited<ReturnType<typeof startDeployed>> | null = null;
      try {
        const ids = await startCrawl(a.url, start);
        const midway = await waitJob(a.url, ids, (j) => j.counts.indexed >= 20);
        assert.equal(midway.status, "running", JSON.stringify(midway));
        // The second instance comes up while the first holds the lease: it leaves the job alone.
        b = await startDeployed({ KV_PATH: kvPath, ...CRAWL_ENV });
        const holder = await leaseOf(kvPath, ids);
        assert.ok(holder, "the first instance holds the lease");

        const stopped = await a.signal("SIGINT");
        assert.equal(stopped.code, 0, a.out());
        assert.ok(stopped.ms < DEPLOY_GRACE_MS, `exited ${stopped.ms.toFixed(0)} ms after SIGINT`);
        // Handed back, not left to lapse (10 s): the other instance's sweep takes it within seconds.
        const handedAt = performance.now();
        let taker: string | null = null;
        while (performance.now() - handedAt < 8000) {
          taker = await leaseOf(kvPath, ids);
          if (taker && taker !== holder) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(taker && taker !== holder, "the other instance took the lease");
        assert.ok(performance.now() - handedAt < 5000, "taken over before a lease could lapse");

        const job = await waitJob(
          b.url,
          ids,
          (j) => j.status !== "running" && j.status !== "queued",
        );
        await assertWhole(c, ids, job);
        assert.equal(job.counts.indexed, want.indexed, "no page stored twice");
      } finally {
        if (a.alive()) await a.signal("SIGKILL");
        if (b?.alive()) await b.signal("SIGKILL");
      }
    }),
});

Deno.test({
  name:
    "deploy shape - every instance killed mid-crawl: a fresh one resumes the crawl to done, every page stored once",
  ignore,
  fn: () =>
    withDocSite(async (c) => {
      const { kvPath, start, want } = c;
      // A short lapse: no instance is left to hand the lease back.
      const env = { KV_PATH: kvPath, CRAWL_STALE_MS: "2000", ...CRAWL_ENV };
      const a = await startDeployed(env);
      const b = await startDeployed(env);
      let fresh: Awaited<ReturnType<typeof startDeployed>> | null = null;
      try {
        const ids = await startCrawl(a.url, start);
        const midway = await waitJob(b.url, ids, (j) => j.counts.indexed >= 20);
        assert.equal(midway.status, "running", JSON.stringify(midway));
        await Promise.all([a.signal("SIGKILL"), b.signal("SIGKILL")]);
        fresh = await startDeployed(env);
        const job = await waitJob(fresh.url, ids, (j) =>
          j.status !== "running" && j.status !== "queued");
        await assertWhole(c, ids, job);
        // A page stored in the last second before the kill, its mark not yet saved, is fetched
        // again and found unchanged: stored once, counted once.
        assert.equal(
          job.counts.indexed + job.counts.unchanged,
          want.indexed,
          `no page stored twice: ${JSON.stringify(job.counts)}`,
        );
      } finally {
        for (const i of [a, b, fresh]) {
          if (i?.alive()) {
            await i.signal("SIGKILL");
          }
        }
      }
    }),
});

/** Server-sent events read from a response until it ends: their names and data. */
async function events(res: Response, onEvent: (name: string) => void) {
  const seen: { event: string; data: Record<string, unknown> }[] = [];
  let buffer = "";
  for await (const text of res.body!.pipeThrough(new TextDecoderStream())) {
    buffer += text;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event) continue; // a ping
      seen.push({ event, data: JSON.parse(data ?? "null") });
      onEvent(event);
    }
  }
  return seen;
}

for (const deploy of [true, false]) {
  const front = deploy ? "Deno.serve (Deploy mode)" : "our HTTP server";
  Deno.test(`deploy shape - ${front}: answers streaming at SIGINT end with done or a retry-able error, never cut`, async () => {
    const llm = await startFakeLLM();
    const dir = await Deno.makeTempDir();
    // One answer ends soon after the signal, within the grace; the other would take 20 s
    // more. Sentences go out once checked against the page, when the next one has begun.
    llm.setScript([
      {
        kind: "text",
        pieces: ["Descale the kettle every month [1]. ", "Rinse ", "the ", "kettle ", "twice [1]."],
        delayMs: 400,
      },
      {
        kind: "text",
        pieces: Array.from({ length: 40 }, (_, i) => i % 2 ? "twice [1]. " : "Rinse the kettle "),
        delayMs: 500,
      },
    ]);
    const inst = await startDeployed({
      DENO_DEPLOY: deploy ? "true" : "",
      KV_PATH: `${dir}/kv.sqlite`,
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: llm.url,
    });
    try {
      const created = await operator(inst.url, "/api/admin/sites", {
        body: { name: "Kettles", plan: "pro" },
      });
      const siteId = (created.body.site as { id: string }).id;
      const key = created.body.publicKey as string;
      const put = await fetch(`${inst.url}/api/admin/sites/${siteId}/pages`, {
        method: "PUT",
        headers: {
          Authorization: `Bearer op_deploy_shape_token`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({
          pages: [{
            url: "/care",
            title: "Kettle care",
            body: "Descale the kettle every month with citric acid. Rinse the kettle twice.",
          }],
        }),
      });
      assert.equal(put.status, 200);
      await put.body?.cancel();
      const ask = () =>
        fetch(`${inst.url}/api/summarize`, {
          method: "POST",
          headers: { "X-API-Key": key, "Content-Type": "application/json" },
          body: JSON.stringify({ query: "How do I descale the kettle?", stream: true }),
        });
      const started = (n: number) => {
        const first = Promise.withResolvers<void>();
        return { first, on: (e: string) => e === "delta" && n-- <= 1 && first.resolve() };
      };
      const quick = started(1);
      const quickRes = await ask();
      assert.equal(quickRes.status, 200);
      // Waits for the first delta, or the stream's end (the assertions below then say why).
      const quickEvents = events(quickRes, quick.on).finally(() => quick.first.resolve());
      await quick.first.promise;
      const slow = started(1);
      const slowRes = await ask();
      assert.equal(slowRes.status, 200);
      const slowEvents = events(slowRes, slow.on).finally(() => slow.first.resolve());
      await slow.first.promise;

      const stopping = inst.signal("SIGINT");
      const [q, s] = await Promise.all([quickEvents, slowEvents]);
      const stopped = await stopping;
      assert.ok(stopped.ms < DEPLOY_GRACE_MS, `exited ${stopped.ms.toFixed(0)} ms after SIGINT`);
      assert.equal(stopped.code, 0);
      assert.equal(q.at(-1)?.event, "done", JSON.stringify(q));
      assert.match(String(q.at(-1)?.data.answer), /Descale the kettle every month \[1\]\. Rinse/);
      assert.equal(s.at(-1)?.event, "error", JSON.stringify(s.slice(-2)));
      assert.equal(s.at(-1)?.data.code, "SERVICE_UNAVAILABLE");
      assert.equal(s.at(-1)?.data.retry_after, 1, "the client is told to ask again");
      for (const seen of [q, s]) {
        assert.equal(seen.filter((e) => e.event === "done" || e.event === "error").length, 1);
      }
    } finally {
      if (inst.alive()) await inst.signal("SIGKILL");
      await llm.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("deploy shape - a first revision with no variables set starts in production mode: no demo site, no secret in the logs", async () => {
  const dir = await Deno.makeTempDir();
  const inst = await startDeployed({ KV_PATH: `${dir}/kv.sqlite`, SITESEARCH_OPERATOR_TOKEN: "" });
  try {
    assert.match(inst.out(), /production mode/);
    assert.match(inst.out(), /operator API:\s+off/);
    assert.doesNotMatch(inst.out(), /\b(op|sk|pk)_[A-Za-z0-9]/, "no token or key printed");
    const demo = await fetch(`${inst.url}/demo/`);
    await demo.body?.cancel();
    assert.equal(demo.status, 404);
    const sites = await fetch(`${inst.url}/api/admin/sites`, {
      headers: { Authorization: "Bearer op_anything" },
    });
    await sites.body?.cancel();
    assert.equal(sites.status, 401, "no operator token: the operator API is closed");
  } finally {
    await inst.signal("SIGINT");
    await Deno.remove(dir, { recursive: true });
  }
});
