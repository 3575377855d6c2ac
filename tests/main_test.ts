import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { html, serveSite, urlset } from "./fixtures/crawl_site.ts";
import { clearOfMinuteEdge } from "./fixtures/minute_edge.ts";
import { MALLOC_ENV, TUNED_V8_FLAGS, V8_FLAGS, WRITE_PATHS } from "../lib/runtime_flags.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** What Deno Deploy's permissions come down to for this app: no writing, no subprocesses. */
const DEPLOY_LIKE = ["--allow-net", "--allow-read", "--allow-env", "--allow-sys"];

interface Run {
  pid: number;
  out: string;
  url: string;
  field: (name: string) => string;
  /** Everything printed so far, stdout and stderr. */
  log: () => string;
  stop: (signal?: Deno.Signal) => Promise<void>;
}

/** Runs `main.ts` until it prints its URL; keeps reading its output afterwards. */
async function start(
  env: Record<string, string>,
  opts: { permissions?: string[]; cwd?: string; v8?: string } = {},
): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      `${ROOT}deno.json`,
      ...(opts.v8 ? [`--v8-flags=${opts.v8}`] : []),
      ...(opts.permissions ?? ["-A"]),
      `${ROOT}main.ts`,
    ],
    cwd: opts.cwd ?? ROOT,
    env: { ...env, PORT: "0", HOSTNAME: "127.0.0.1", OPENAI_API_KEY: "" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const pump = async (s: ReadableStream<Uint8Array<ArrayBuffer>>, add: (t: string) => void) => {
    for await (const t of s.pipeThrough(new TextDecoderStream())) add(t);
  };
  const pumps = Promise.all([
    pump(child.stdout, (t) => out += t),
    pump(child.stderr, (t) => err += t),
  ]);
  const status = child.status;
  let exited = false;
  status.then(() => exited = true);
  const deadline = Date.now() + 30_000;
  while (!/running at \S+/.test(out) || !/(try|ready):\s+curl/.test(out)) {
    if (exited || Date.now() > deadline) {
      await pumps;
      throw new Error(`main.ts did not start:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    pid: child.pid,
    out,
    url: /running at (\S+)/.exec(out)![1],
    field: (name) => new RegExp(`${name}:\\s+(\\S+)`).exec(out)?.[1] ?? "",
    log: () => out + err,
    stop: async (signal: Deno.Signal = "SIGTERM") => {
      if (!exited) child.kill(signal);
      await status;
      await pumps;
    },
  };
}

const bearer = (token: string, body?: unknown, method = body ? "POST" : "GET") => ({
  method,
  headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
  body: body === undefined ? undefined : JSON.stringify(body),
});

async function json(res: Response) {
  return { status: res.status, body: await res.json() };
}

/** Every key and value of a KV file, as text. */
async function dump(path: string): Promise<string> {
  const kv = await Deno.openKv(path);
  const lines: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    lines.push(
      JSON.stringify(e.key) + " " +
        JSON.stringify(
          e.value,
          (_, v) =>
            typeof v === "bigint" ? String(v) : v instanceof Deno.KvU64 ? String(v.value) : v,
        ),
    );
  }
  kv.close();
  return lines.join("\n");
}

/** Polls a crawl job until it ends. */
async function waitForJob(base: string, token: string, siteId: string, jobId: string) {
  for (let i = 0; i < 600; i++) {
    const { body } = await json(
      await fetch(`${base}/api/admin/sites/${siteId}/crawl/${jobId}`, bearer(token)),
    );
    if (body.status !== "queued" && body.status !== "running") return body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the crawl did not end");
}

Deno.test("start - deno task start runs with least privilege (no FFI, no subprocess, no exposed gc, writes only where it writes); start:tuned opts in", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const flags = (task: string) => tasks[task].split(" ") as string[];
  const write = `--allow-write=${WRITE_PATHS.join(",")}`;
  const malloc = Object.entries(MALLOC_ENV).map(([k, v]) => `${k}=${v}`);
  for (const task of ["start", "dev"]) {
    assert.deepEqual(flags(task).slice(0, malloc.length), malloc, tasks[task]);
    assert.ok(flags(task).includes(`--v8-flags=${V8_FLAGS}`), tasks[task]);
    assert.ok(flags(task).includes(write), tasks[task]);
    for (const wide of ["-A", "--allow-all", "--allow-ffi", "--allow-write", "--allow-sys"]) {
      assert.ok(!flags(task).includes(wide), `${task}: ${wide}`);
    }
  }
  assert.ok(!flags("start").includes("--allow-run"), "start spawns nothing");
  assert.ok(!V8_FLAGS.includes("expose-gc"));
  assert.ok(flags("start:tuned").includes(`--v8-flags=${TUNED_V8_FLAGS}`));
  assert.ok(flags("start:tuned").includes("--allow-ffi"));
  assert.equal(flags("start:tuned")[0], "PLATFORM_TUNING=on");
});

Deno.test("start - deno task start serves, its server holding the V8 flags and malloc settings of runtime_flags.ts and its page text file", async () => {
  const dir = await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd: ROOT,
    env: { PORT: "0", HOSTNAME: "127.0.0.1", KV_PATH: `${dir}/kv`, OPENAI_API_KEY: "" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let out = "";
  const pumping = (async () => {
    for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) out += text;
  })();
  try {
    for (let i = 0; i < 600 && !/http:\/\/127\.0\.0\.1:\d+/.test(out); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = out.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
    assert.ok(url, out);
    const health = await fetch(`${url}/healthz`);
    await health.body?.cancel();
    assert.equal(health.status, 200);
    // The task runner's child is the server (read through cat: no --allow-all here).
    const cat = async (path: string) =>
      new TextDecoder().decode((await new Deno.Command("cat", { args: [path] }).output()).stdout);
    const server =
      (await cat(`/proc/${child.pid}/task/${child.pid}/children`)).trim().split(" ")[0];
    const environ = (await cat(`/proc/${server}/environ`)).split("\0");
    for (const [k, v] of Object.entries(MALLOC_ENV)) assert.ok(environ.includes(`${k}=${v}`), k);
    const cmdline = (await cat(`/proc/${server}/cmdline`)).split("\0").filter(Boolean);
    assert.ok(cmdline.includes(`--v8-flags=${V8_FLAGS}`), cmdline.join(" "));
    assert.ok(cmdline.at(-1)?.endsWith("main.ts"), cmdline.join(" "));
    // The indexes' page text goes to a file beside the KV file, gone from its directory at once.
    const { stdout } = await new Deno.Command("sh", {
      args: ["-c", `for f in /proc/${server}/fd/*; do readlink "$f"; done`],
    }).output();
    const open = new TextDecoder().decode(stdout).split("\n");
    assert.ok(
      open.some((f) => f.startsWith(`${dir}/.text-`) && f.endsWith("(deleted)")),
      open.join("\n"),
    );
    assert.ok(![...Deno.readDirSync(dir)].some((e) => e.name.startsWith(".text-")));
  } finally {
    child.kill("SIGINT");
    await child.status;
    await pumping;
    await Deno.remove(dir, { recursive: true });
  }
});

/** The `--allow-*` flags of a deno.json task. */
async function taskPermissions(task: string): Promise<string[]> {
  const { tasks } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  return tasks[task].split(" ").filter((f: string) => f.startsWith("--allow-"));
}

/** V8's platform worker threads as Linux names them (cut to 15 bytes). */
const V8_WORKER_NAME = "V8 DefaultWorke";

/** Each thread of a process: its name and scheduling policy (0 normal, 5 SCHED_IDLE). */
async function threadPolicies(pid: number) {
  // Through sh: reading /proc directly needs --allow-all, running a program does not.
  const script = `for t in /proc/${pid}/task/*; do
    echo "$(basename "$t")|$(cat "$t/comm")|$(grep -m1 '^policy' "$t/sched" | tr -dc 0-9)"
  done`;
  const { stdout } = await new Deno.Command("sh", { args: ["-c", script] }).output();
  return new TextDecoder().decode(stdout).trim().split("\n").map((line) => {
    const [tid, name, policy] = line.split("|");
    return { tid: Number(tid), name, policy: Number(policy) };
  });
}

Deno.test({
  name:
    "start - with start:tuned's permissions and PLATFORM_TUNING=on, V8's worker threads give way (SCHED_IDLE) where a core is left for them, the threads serving requests do not; with start's, nothing is tuned",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir();
    const plain = await start({ KV_PATH: `${dir}/plain.sqlite` }, {
      permissions: await taskPermissions("start"),
    });
    try {
      assert.match(plain.field("tuning"), /^off/);
      const threads = await threadPolicies(plain.pid);
      assert.ok(threads.every((t) => t.policy === 0), JSON.stringify(threads));
    } finally {
      await plain.stop();
    }
    const run = await start({ KV_PATH: `${dir}/kv.sqlite`, PLATFORM_TUNING: "on" }, {
      permissions: await taskPermissions("start:tuned"),
    });
    try {
      assert.match(run.field("tuning"), /malloc_trim/);
      const threads = await threadPolicies(run.pid);
      const workers = threads.filter((t) => t.name === V8_WORKER_NAME);
      assert.ok(workers.length >= 1, JSON.stringify(threads));
      // One process: V8's threads give way wherever there is a second core for them.
      const policy = navigator.hardwareConcurrency > 1 ? 5 : 0;
      for (const t of workers) assert.equal(t.policy, policy, JSON.stringify(t));
      for (const t of threads.filter((t) => !workers.includes(t))) {
        assert.equal(t.policy, 0, JSON.stringify(t)); // the main thread, I/O, KV
      }
      assert.ok(threads.some((t) => t.tid === run.pid && t.policy === 0));
      // It still answers.
      const key = run.field("public key");
      assert.equal((await fetch(`${run.url}/api/search?q=shipping&key=${key}`)).status, 200);
    } finally {
      await run.stop();
    }
  },
});

Deno.test("start - zero configuration creates the demo site, prints the generated operator token once and keeps only its hash", async () => {
  const dir = await Deno.makeTempDir();
  const env = { KV_PATH: `${dir}/kv/sitesearch.kv` };
  const first = await start(env);
  const publicKey = first.field("public key");
  const operator = first.field("operator token");
  assert.match(publicKey, /^pk_/);
  assert.match(first.field("admin key"), /^sk_/);
  assert.match(operator, /^op_/);
  assert.match(first.out, /created now/);
  assert.match(first.out, /shown once/);
  const found = await json(await fetch(`${first.url}/api/search?q=shipping&key=${publicKey}`));
  assert.equal(found.status, 200);
  assert.ok(found.body.meta.found > 0);
  const sites = await json(await fetch(`${first.url}/api/admin/sites`, bearer(operator)));
  assert.equal(sites.body.sites.length, 1);
  await first.stop();
  const stored = await dump(env.KV_PATH);
  assert.ok(!stored.includes(operator), "the operator token itself is never stored");

  const second = await start(env);
  assert.match(second.out, /kept from last run/);
  assert.equal(second.field("public key"), publicKey);
  assert.ok(!second.log().includes(operator), "a generated token is printed once only");
  const again = await fetch(`${second.url}/api/admin/sites`, bearer(operator));
  assert.equal(again.status, 200, "the token shown on the first run still works");
  await again.body?.cancel();
  await second.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("start - production mode (SITESEARCH_OPERATOR_TOKEN) creates no demo site and prints no secret", async () => {
  const dir = await Deno.makeTempDir();
  const token = "op_production_secret_7f3a9c";
  const run = await start({ KV_PATH: `${dir}/s.kv`, SITESEARCH_OPERATOR_TOKEN: token });
  const sites = await json(await fetch(`${run.url}/api/admin/sites`, bearer(token)));
  assert.equal(sites.status, 200);
  assert.deepEqual(sites.body.sites, []);
  const demo = await fetch(`${run.url}/demo/`);
  assert.equal(demo.status, 404, "no demo site is served (a visit would create it)");
  await demo.body?.cancel();
  await run.stop();
  const log = run.log();
  assert.match(log, /production mode/);
  assert.ok(!log.includes(token), "the operator token is not printed");
  assert.doesNotMatch(log, /\b(pk|sk|op)_[0-9A-Za-z]{10,}/, "no key of any kind is printed");
  const stored = await dump(`${dir}/s.kv`);
  assert.ok(!stored.includes(token), "the token is not stored");
  assert.doesNotMatch(stored, /"demo"/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("start - SITESEARCH_DEMO=false without a token: no demo, no secret, no operator access", async () => {
  const dir = await Deno.makeTempDir();
  const run = await start({ KV_PATH: `${dir}/s.kv`, SITESEARCH_DEMO: "false" });
  assert.match(run.out, /operator API:\s+off/);
  const res = await fetch(`${run.url}/api/admin/sites`, bearer("op_guess"));
  assert.equal(res.status, 401);
  await res.body?.cancel();
  await run.stop();
  assert.doesNotMatch(run.log(), /\b(pk|sk|op)_[0-9A-Za-z]{10,}/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("start - with Deploy's permissions (no write, no run) in a read-only directory it serves, crawls and answers", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.chmod(dir, 0o555);
  const fixture = serveSite();
  fixture.routes.set("/robots.txt", {
    headers: { "Content-Type": "text/plain" },
    body: `User-agent: *\nAllow: /\nSitemap: ${fixture.origin}/sitemap.xml\n`,
  });
  fixture.routes.set(
    "/",
    html("Readonly kettles", `<p>Our copper kettle boils fast.</p><a href="/care">Care</a>`),
  );
  fixture.routes.set("/care", html("Kettle care", "<p>Descale the copper kettle monthly.</p>"));
  fixture.routes.set("/unlinked", html("Warranty", "<p>The copper kettle warranty.</p>"));
  fixture.routes.set("/sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlset(fixture.origin, ["/unlinked"]),
  });
  const token = "op_readonly_test_token";
  const run = await start({
    KV_PATH: ":memory:",
    SITESEARCH_OPERATOR_TOKEN: token,
    CRAWL_ALLOW_LOOPBACK: "true",
    CRAWL_DELAY_MS: "0",
  }, { permissions: DEPLOY_LIKE, cwd: dir });
  try {
    const health = await json(await fetch(`${run.url}/healthz`));
    assert.equal(health.status, 200);
    const created = await json(
      await fetch(`${run.url}/api/admin/sites`, bearer(token, { name: "Kettles", plan: "pro" })),
    );
    assert.equal(created.status, 201);
    const siteId = created.body.site.id;
    const started = await json(
      await fetch(
        `${run.url}/api/admin/sites/${siteId}/crawl`,
        bearer(token, { url: `${fixture.origin}/` }),
      ),
    );
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const job = await waitForJob(run.url, token, siteId, started.body.job.id);
    assert.equal(job.status, "done", JSON.stringify(job));
    assert.equal(job.counts.indexed, 3, "the start page, its link and robots.txt's sitemap entry");
    const found = await json(
      await fetch(`${run.url}/api/search?q=copper+kettle&key=${created.body.publicKey}`),
    );
    assert.equal(found.status, 200);
    assert.deepEqual(
      found.body.results.map((r: { url: string }) => r.url.split("#")[0]).sort(),
      ["/", "/care", "/unlinked"],
    );
    const answer = await json(
      await fetch(`${run.url}/api/summarize`, {
        method: "POST",
        headers: { "X-API-Key": created.body.publicKey, "Content-Type": "application/json" },
        body: JSON.stringify({ query: "How do I descale the kettle?" }),
      }),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.ok(answer.body.sources.length > 0);
  } finally {
    await run.stop();
    await fixture.close();
    await Deno.chmod(dir, 0o755);
    await Deno.remove(dir, { recursive: true });
  }
  assert.doesNotMatch(run.log(), /PermissionDenied|NotCapable|Requires write access/);
});

/** Crawls a fixture whose last page hangs, stops the instance mid-way with `signal`, and lets a second one finish. */
async function resumeAfter(signal: Deno.Signal, staleMs: string | null) {
  const dir = await Deno.makeTempDir();
  const fixture = serveSite();
  const pages = ["/a", "/b", "/c", "/d", "/e"];
  fixture.routes.set(
    "/",
    html("Start", pages.map((p) => `<a href="${p}">${p}</a>`).join(" ") + `<a href="/slow">s</a>`),
  );
  for (const p of pages) fixture.routes.set(p, html(`Page ${p}`, `<p>Kettle page ${p}.</p>`));
  fixture.routes.set("/slow", { stall: "headers" });
  const token = "op_resume_test_token";
  const env = {
    KV_PATH: `${dir}/shared.kv`,
    SITESEARCH_OPERATOR_TOKEN: token,
    CRAWL_ALLOW_LOOPBACK: "true",
    CRAWL_DELAY_MS: "0",
    ...(staleMs ? { CRAWL_STALE_MS: staleMs } : {}),
  };
  const first = await start(env);
  const created = await json(
    await fetch(`${first.url}/api/admin/sites`, bearer(token, { name: "K", plan: "pro" })),
  );
  const siteId = created.body.site.id;
  const started = await json(
    await fetch(
      `${first.url}/api/admin/sites/${siteId}/crawl`,
      bearer(token, { url: `${fixture.origin}/` }),
    ),
  );
  const jobId = started.body.job.id;
  // Until the first instance has saved every linked page but the one that hangs as done
  // (the start page is part of the first step's state, not a task).
  const kv = await Deno.openKv(env.KV_PATH);
  const want = pages.map((p) => `${fixture.origin}${p}`);
  for (let i = 0; i < 600; i++) {
    const done = new Set<string>();
    for await (const e of kv.list<{ s: number }>({ prefix: ["crawlurl", siteId, jobId] })) {
      if (e.value.s === 2) done.add(e.key[3] as string);
    }
    const record = await kv.get<{ counts: { indexed: number } }>(["crawljob", siteId, jobId]);
    const saved = (record.value?.counts.indexed ?? 0) > pages.length;
    if (saved && want.every((u) => done.has(u))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  kv.close();
  await first.stop(signal);
  fixture.routes.set("/slow", html("Slow", "<p>Kettle page that was slow.</p>"));

  const resumed = Date.now();
  const second = await start(env);
  const job = await waitForJob(second.url, token, siteId, jobId);
  await second.stop();
  await fixture.close();
  assert.equal(job.status, "done", JSON.stringify(job));
  assert.equal(job.counts.indexed, pages.length + 2);
  const count = (p: string) => fixture.paths().filter((x) => x === p).length;
  for (const p of ["/", ...pages]) assert.equal(count(p), 1, `${p} fetched once`);
  assert.equal(count("/slow"), 2, "only the page in flight is fetched again");
  const after = await Deno.openKv(env.KV_PATH);
  const stored: string[] = [];
  for await (const e of after.list({ prefix: ["page", siteId] })) stored.push(e.key[2] as string);
  after.close();
  assert.deepEqual(stored.sort(), ["/", ...pages, "/slow"].sort());
  await Deno.remove(dir, { recursive: true });
  return Date.now() - resumed;
}

Deno.test("start - a crawl whose instance is killed mid-way is resumed by a new instance, every page stored once", async () => {
  await resumeAfter("SIGKILL", "1500");
});

Deno.test("start - an instance stopped with SIGTERM hands its crawl lease back at once", async () => {
  // With the default 30 s staleness, only the hand-off explains a quick finish.
  const ms = await resumeAfter("SIGTERM", null);
  assert.ok(ms < 15_000, `resumed in ${ms} ms`);
});

/** Sockets listening on `port` on this machine, from /proc/net/tcp (through cat: no --allow-all). */
async function listeners(port: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: ["/proc/net/tcp"] }).output();
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((line) => line.includes(`:${hex} `) && / 0A /.test(line)).length;
}

Deno.test("start - WORKERS=2 serves from two processes on one port with the parent's permissions, quotas stay exact, and both stop together", async () => {
  const dir = await Deno.makeTempDir();
  const permissions = await taskPermissions("start:tuned");
  // 60 connections at once from this one address: its cap (MAX_CONNECTIONS_PER_IP) is lifted.
  const run = await start(
    { KV_PATH: `${dir}/s.kv`, WORKERS: "2", MAX_CONNECTIONS_PER_IP: "1000", PLATFORM_TUNING: "on" },
    { permissions, v8: TUNED_V8_FLAGS },
  );
  const port = Number(new URL(run.url).port);
  for (let i = 0; i < 100 && !/workers:\s+2 processes/.test(run.log()); i++) {
    await new Promise((r) => setTimeout(r, 50)); // printed just after the banner
  }
  assert.match(run.log(), /workers:\s+2 processes/);
  for (let i = 0; i < 100 && await listeners(port) < 2; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await listeners(port), 2, "two processes listen on the port");
  // The worker runs with the V8 flags of `deno task start:tuned`, as its parent does.
  // Read through cat: Deno reads another process's /proc files only with --allow-all.
  const cat = async (path: string) =>
    new TextDecoder().decode((await new Deno.Command("cat", { args: [path] }).output()).stdout);
  const children = await cat(`/proc/${run.pid}/task/${run.pid}/children`);
  const cmdline = await cat(`/proc/${children.trim().split(" ")[0]}/cmdline`);
  assert.ok(cmdline.split("\0").includes(`--v8-flags=${TUNED_V8_FLAGS}`), cmdline);
  // The worker holds what the parent was given, never all permissions.
  const flags = cmdline.split("\0");
  assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"), cmdline);
  assert.deepEqual(flags.filter((f) => f.startsWith("--allow-")).sort(), [...permissions].sort());
  // Both give V8's threads way only if two processes leave them a core (none here on 2 cores).
  for (const pid of [run.pid, Number(children.trim().split(" ")[0])]) {
    const workers = (await threadPolicies(pid)).filter((t) => t.name === V8_WORKER_NAME);
    assert.ok(workers.length >= 1);
    const policy = 2 < navigator.hardwareConcurrency ? 5 : 0;
    for (const t of workers) assert.equal(t.policy, policy, `${pid}: ${JSON.stringify(t)}`);
  }
  const token = run.field("operator token");
  const created = await json(
    await fetch(`${run.url}/api/admin/sites`, bearer(token, { name: "Two", plan: "free" })),
  );
  assert.equal(created.status, 201);
  const put = await fetch(`${run.url}/api/admin/sites/${created.body.site.id}/pages`, {
    ...bearer(token, { pages: [{ url: "/tea", title: "Tea", body: "Green tea and black tea." }] }),
    method: "PUT",
  });
  assert.equal(put.status, 200);
  await put.body?.cancel();
  // New connections each (the kernel spreads them over both processes); Free allows 30 a minute.
  await clearOfMinuteEdge(); // the limits below count in one minute
  const statuses = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
    const res = await fetch(`${run.url}/api/search?q=tea+${i}&key=${created.body.publicKey}`, {
      headers: { Connection: "close" },
    });
    await res.body?.cancel();
    return res.status;
  }));
  assert.equal(statuses.filter((s) => s === 200).length, 30, JSON.stringify(statuses));
  assert.equal(statuses.filter((s) => s === 429).length, 30);
  await run.stop();
  for (let i = 0; i < 100 && await listeners(port) > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await listeners(port), 0, "the second worker ended with the first");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("start - a KV_PATH where deno task start may not write is refused with what to do, not a permission prompt", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      `${ROOT}deno.json`,
      ...await taskPermissions("start"),
      `${ROOT}main.ts`,
    ],
    cwd: ROOT,
    env: { KV_PATH: "/var/tmp/sitesearch-not-allowed/s.kv", PORT: "0", HOSTNAME: "127.0.0.1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const err = new TextDecoder().decode(out.stderr);
  assert.match(err, /cannot write its KV file at \/var\/tmp\/sitesearch-not-allowed\/s\.kv/);
  assert.match(err, /--allow-write=\/var\/tmp\/sitesearch-not-allowed\//);
});
