/**
 * Entry point: reads the environment, opens KV, starts the crawl worker, serves.
 * Zero configuration gives the local demo (a demo site, keys printed). Production mode
 * (SITESEARCH_OPERATOR_TOKEN set, or SITESEARCH_DEMO=false) creates no demo site and
 * prints no secret. On Deno Deploy it serves with Deno.serve and needs no writable disk;
 * elsewhere with our own HTTP/1.1 server, which bounds what a client can hold.
 */
import { createApp } from "./app.ts";
import { type CrawlWorker, startCrawlWorker } from "./lib/crawl/worker.ts";
import { selfCheckAfterCrawl } from "./lib/answers/selfcheck.ts";
import { ensureDemoSite, operatorToken } from "./lib/demo/site.ts";
import { ensureBuilt } from "./scripts/build.ts";
import { createOpenAISummarizer } from "./lib/answers/model.ts";
import { jsonLogger, serverErrorBody, stdoutLines } from "./lib/http/middleware.ts";
import { SERVE_DEFAULTS, serveHttp } from "./lib/http/server/mod.ts";
import { type WarmAppOptions, warmRequestPath } from "./lib/http/warm_path.ts";
import { openResilientKv } from "./lib/storage/kv_retry.ts";
import { parseTrustedProxies } from "./lib/http/proxies.ts";
import { collectGarbage, startTuning, writableProbe } from "./lib/platform/mod.ts";
import { onDeploy } from "./lib/deploy.ts";
import { noteArrival, warmSearch, warmWhileQuiet } from "./lib/search/mod.ts";
import { TextSpill } from "./lib/storage/text_spill.ts";
import { TUNED_V8_FLAGS, V8_FLAGS, WRITE_PATHS } from "./lib/runtime_flags.ts";

const env = (name: string) => Deno.env.get(name) || undefined;
const deployed = onDeploy();
/** Linux and glibc tuning (lib/platform), off by default: it needs FFI and V8's gc. */
const tuned = env("PLATFORM_TUNING") === "on";

/**
 * Deno Deploy provides its KV; elsewhere DENO_KV_URL (a shared denokv), KV_PATH, or a local file.
 * KV_PATH wins on Deploy too, so that tests run several Deploy-mode processes on one file.
 */
async function openKv(): Promise<Deno.Kv> {
  if (deployed && !env("KV_PATH")) return await openResilientKv();
  const target = kvTarget(), dir = kvDir(target);
  if (dir !== null) {
    if (!mayWrite(dir)) {
      // deno task start writes only to WRITE_PATHS: say so rather than fail on a prompt.
      console.error(
        `SiteSearch cannot write its KV file at ${target}: this process may write only to ` +
          `${WRITE_PATHS.join(", ")}. Set KV_PATH inside one of them, or add ` +
          `--allow-write=${dir} to the command that starts it.`,
      );
      Deno.exit(1);
    }
    await Deno.mkdir(dir, { recursive: true });
  }
  // Retries a lock held by another instance opening the same new file; checks the file (kv_retry.ts).
  return await openResilientKv(target, { writable: tuned ? writableProbe : undefined });
}

/** The KV this process opens where it is not Deploy's own. */
const kvTarget = () => env("DENO_KV_URL") ?? env("KV_PATH") ?? "./data/sitesearch.kv";

/** The folder of a KV file; null for a remote or in-memory KV. */
const kvDir = (target: string) =>
  target.includes("://") || target === ":memory:" ? null : target.replace(/[^/]*$/, "") || ".";

/** Whether this process may write in `dir` (asked without a prompt). */
const mayWrite = (dir: string) =>
  Deno.permissions.querySync({ name: "write", path: dir }).state === "granted";

/**
 * Where the indexes keep their pages' text (storage/text_spill.ts): a file beside the KV file
 * (./data with a remote or in-memory KV). Not on Deploy, which has no file system to write,
 * nor with TEXT_SPILL=off, nor where this process may not write: text then stays in memory.
 */
function openTextSpill(): TextSpill | null {
  if (deployed || env("TEXT_SPILL") === "off") return null;
  const dir = kvDir(kvTarget()) ?? "./data";
  if (!mayWrite(dir)) return null;
  try {
    Deno.mkdirSync(dir, { recursive: true });
  } catch {
    return null;
  }
  return TextSpill.open(dir);
}

/** A positive whole number from the environment, else `fallback`. */
const envNumber = (name: string, fallback: number) => {
  const n = Number(env(name));
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
/** A whole number ≥ 0 from the environment, else undefined: the default then lives in lib/. */
const optionalNumber = (name: string) => {
  const n = Number(env(name) ?? NaN);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};
/** TRUSTED_PROXIES parsed; a list that does not parse stops the start, saying which entry. */
function proxiesFromEnv() {
  const spec = env("TRUSTED_PROXIES");
  if (!spec) return null;
  try {
    return parseTrustedProxies(spec);
  } catch (err) {
    console.error((err as Error).message);
    Deno.exit(1);
  }
}
const megabytes = (n: number | undefined) => n === undefined ? undefined : n * 1024 * 1024;

// SITESEARCH_DEMO=true keeps the demo beside an operator token (a staging server, the tests). On
// Deploy production is the default: a first build that runs before its variables are set must
// not create a demo site or print a token into the platform's logs.
const production = env("SITESEARCH_DEMO") !== "true" &&
  (env("SITESEARCH_OPERATOR_TOKEN") !== undefined || env("SITESEARCH_DEMO") === "false" ||
    deployed);
// Deploy registers crons from top-level code before Deno.serve: declare them first thing. The
// per-minute one wakes an instance where none would otherwise run (Deploy stops idle ones), so
// that crawls go on; it keeps the instance busy while it crawls, until the next one.
const cron = typeof Deno.cron === "function" ? Deno.cron : null;
const crawler = Promise.withResolvers<CrawlWorker>();
cron?.("sitesearch-recrawl", "17 * * * *", async () => await (await crawler.promise).recrawlDue());
cron?.(
  "sitesearch-crawl-sweep",
  "* * * * *",
  async () => await (await crawler.promise).wake(55_000),
);

if (!deployed) await ensureBuilt(); // widget.js and results.js, when missing or stale (local only)
const kv = await openKv();
const token = await operatorToken(kv, env("SITESEARCH_OPERATOR_TOKEN"), !production);
const apiKey = env("OPENAI_API_KEY");
const summarizer = apiKey
  ? createOpenAISummarizer({
    apiKey,
    baseURL: env("OPENAI_BASE_URL"),
    model: env("SUMMARY_MODEL") ?? "gpt-4o-mini",
  })
  : undefined; // the built-in extractive summarizer: everything works offline
const crawlDelayMs = optionalNumber("CRAWL_DELAY_MS");
const trustedProxies = proxiesFromEnv();
const { app, services, early } = createApp({
  kv,
  operatorTokenHash: token.hash,
  demo: !production,
  summarizer,
  summaryIpLimitPerMinute: optionalNumber("SUMMARY_IP_LIMIT_PER_MINUTE"), // default: ip_limit.ts
  resultCacheBytes: megabytes(optionalNumber("RESULT_CACHE_MB")), // default: result_cache.ts
  // Fits Deno Deploy's 768 MB instance: an evicted site comes back from its snapshot in KV.
  indexMemoryBytes: envNumber("INDEX_MEMORY_MB", 256) * 1024 * 1024,
  indexSnapshots: env("INDEX_SNAPSHOTS") !== "off",
  rehearseSearches: !deployed, // CPU there is billed by the request (search/warm.ts)
  textSpill: openTextSpill(),
  trustedProxies,
  collectGarbage: tuned ? collectGarbage : undefined,
  crawl: {
    allowLoopback: env("CRAWL_ALLOW_LOOPBACK") === "true",
    ...(crawlDelayMs === undefined ? {} : { delayMs: crawlDelayMs }), // default: services.ts
  },
});
// The indexes in use before a restart are opened again now, before their visitors come back
// (search/working_set.ts); the list is written every minute and when the process stops.
const mostRecentOpen = Promise.all(
  services.workingSets.map((set) =>
    new Promise<void>((firstDone) => void set.restore(firstDone).finally(() => set.start()))
  ),
);
const demo = production ? null : await ensureDemoSite(services);
const worker = startCrawlWorker(services, {
  staleMs: env("CRAWL_STALE_MS") ? Number(env("CRAWL_STALE_MS")) : undefined,
  cron: cron !== null,
  // Each crawl ended is followed by a run of the answers' self-check: the owner sees a trend.
  afterCrawl: (site) => selfCheckAfterCrawl(services, site),
});
crawler.resolve(worker);
// V8 compiles the search path now, not in a visitor's first search (search/warm.ts: ~40 ms),
// and again on long pages once the server is quiet, until its code is optimized (~200 ms of
// CPU): not on Deploy, whose isolates come and go with the traffic and are billed for CPU.
warmSearch();
if (!deployed) void warmWhileQuiet();
const port = Number(env("PORT") ?? 8000);
// WORKERS=n serves from n processes on one port (each its own index, all on the one KV). The
// first spawns the others once it knows its port; they print nothing and end with it.
const workers = deployed
  ? 1
  : env("WORKERS") === "auto"
  ? navigator.hardwareConcurrency
  : envNumber("WORKERS", 1);
const workerOf = env("SITESEARCH_WORKER_OF");
// V8's compile and GC threads give way to the threads serving requests only where the service's
// processes leave them a core (platform/background_threads.ts): with one process per core,
// first-seen searches under load fell from ~3,000 to ~1,400 a second in some runs.
const processes = Number(env("SITESEARCH_PROCESSES") ?? workers);
const tuning = tuned
  ? startTuning({
    churn: () => services.indexes.turnover + services.documentIndexes.turnover,
    spareCore: processes < navigator.hardwareConcurrency,
  })
  : null;
const hostname = env("HOSTNAME") ?? (deployed ? "0.0.0.0" : "127.0.0.1");
const onListen = (addr: { hostname: string; port: number }) => {
  if (workerOf) return; // the first worker speaks for all
  banner(addr);
  if (workers > 1) spawnWorkers(addr.port);
};
const banner = ({ hostname, port }: { hostname: string; port: number }) => {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = `http://${host}:${port}`;
  const ai = summarizer
    ? `${env("SUMMARY_MODEL") ?? "gpt-4o-mini"} via OPENAI_API_KEY`
    : "built-in extractive summarizer (set OPENAI_API_KEY for a model)";
  if (!demo) {
    // Production: no secret ever goes to the log.
    console.log(`SiteSearch is running at ${url} (production mode)
  operator API:    ${
      token.hash ? "enabled (SITESEARCH_OPERATOR_TOKEN)" : "off: set SITESEARCH_OPERATOR_TOKEN"
    }
  AI answers:      ${ai}
  tuning:          ${tuningLine()}
  ready:           curl '${url}/healthz'`);
    return;
  }
  // A token the operator set is theirs to know; printing it would put it in every log.
  const operator = token.created
    ? `${token.created} (generated now and shown once: only its hash is kept)`
    : env("SITESEARCH_OPERATOR_TOKEN")
    ? "(from SITESEARCH_OPERATOR_TOKEN, not shown)"
    : "(shown on the first run only; set SITESEARCH_OPERATOR_TOKEN to choose one)";
  console.log(`SiteSearch is running at ${url}
  demo site:       ${url}/demo/        (${demo.created ? "created now" : "kept from last run"})
  demo site id:    ${demo.siteId}
  public key:      ${demo.publicKey}
  admin key:       ${demo.adminKey}
  AI answers:      ${ai}
  tuning:          ${tuningLine()}
  operator token:  ${operator}
  try:             curl '${url}/api/search?q=shipping&key=${demo.publicKey}'`);
};

/** What the banner says of the platform tuning (lib/platform). */
function tuningLine(): string {
  if (!tuning) return "off (PLATFORM_TUNING=on with deno task start:tuned turns it on)";
  const lacks = tuning.missing.length ? `; lacks ${tuning.missing.join(", ")}` : "";
  return `${tuning.on.join(", ") || "nothing"}${lacks}`;
}

/**
 * The permissions this process holds, as flags for the workers it starts: never more than it
 * was given. Writing granted only for some of WRITE_PATHS passes on those; any other
 * permission granted only in part is left out (the worker fails loudly rather than get it all).
 */
function grantedFlags(): string[] {
  const names = ["read", "write", "net", "env", "run", "sys", "ffi", "import"] as const;
  const granted = (d: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(d).state === "granted";
  return names.flatMap((name) => {
    if (granted({ name })) return [`--allow-${name}`];
    if (name !== "write") return [];
    const paths = WRITE_PATHS.filter((path) => granted({ name, path }));
    return paths.length ? [`--allow-write=${paths.join(",")}`] : [];
  });
}

/** Whether this process may start its workers (Deno's own binary). */
const mayRunWorkers = () =>
  Deno.permissions.querySync({ name: "run", command: Deno.execPath() }).state === "granted";

const children: Deno.ChildProcess[] = [];
/** Starts the other workers on the port this one listens on, with the same environment. */
function spawnWorkers(port: number) {
  if (!mayRunWorkers()) {
    console.error(
      `  workers:         WORKERS=${workers} needs --allow-run (deno task start:tuned has it); ` +
        "serving from this one process",
    );
    return;
  }
  for (let i = 1; i < workers; i++) {
    children.push(
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...grantedFlags(),
          `--v8-flags=${"gc" in globalThis ? TUNED_V8_FLAGS : V8_FLAGS}`,
          "--config",
          new URL("./deno.json", import.meta.url).pathname,
          new URL(import.meta.url).pathname,
        ],
        env: {
          SITESEARCH_WORKER_OF: String(Deno.pid),
          SITESEARCH_PROCESSES: String(workers),
          PORT: String(port),
          WORKERS: "1",
        },
        stdin: "piped", // never written: it closes when this process ends, however it ends
      }).spawn(),
    );
  }
  console.log(`  workers:         ${workers} processes on port ${port}`);
}

/**
 * Stops within Deploy's 5 s: no new connections; answers being sent finish (a stream still
 * going after STREAM_GRACE_MS ends with a retry-able `error` event); crawl leases handed back;
 * quota units given back, analytics and the working sets written out; KV closed.
 */
const STREAM_GRACE_MS = 2500;
/** How long a start waits at most for the most recently used index to open (working_set.ts). */
const RESTORE_FIRST_MS = 1000;

/** Resolves once `p` has settled, or after `ms`, whichever is first. */
function bounded(p: Promise<unknown>, ms: number) {
  return Promise.race([p.catch(() => {}), new Promise((r) => setTimeout(r, ms))]);
}

/** Past this, the process exits whatever is left: before Deploy's SIGKILL at 5 s. */
const STOP_DEADLINE_MS = 4500;
let stopServer = (_graceMs: number) => Promise.resolve();
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => Deno.exit(0), STOP_DEADLINE_MS);
  for (const child of children) {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
  }
  const serverClosed = stopServer(STREAM_GRACE_MS + 1000);
  await Promise.all([
    services.shutdown.drain(STREAM_GRACE_MS, 500),
    bounded(worker.shutdown(), STREAM_GRACE_MS + 500),
  ]);
  await bounded(serverClosed, 1000); // the streams' last bytes written
  await bounded(services.close(), 500); // quota units given back, analytics and working sets written
  kv.close();
  await stdoutLines.flush(); // the last requests' log lines
  Deno.exit(0);
}

// A restart's first visitors find the most recently used index open: the port opens once it is
// (a slow KV holds the start no longer than RESTORE_FIRST_MS), not while it loads, when a search
// of it waited for the load. Deploy starts an instance for a request that waits on it: no wait.
if (!deployed) await bounded(mostRecentOpen, RESTORE_FIRST_MS);

if (deployed) {
  const server = Deno.serve({ port, hostname, onListen }, app.fetch); // Deploy's own front end
  // Deno.serve's shutdown waits for the responses in flight, the answer streams included.
  stopServer = () => server.shutdown();
} else {
  // Our own HTTP/1.1 server: strict parsing, fair connection caps, deadlines (lib/http/server/).
  const server = serveHttp({
    port,
    hostname,
    maxConnections: envNumber("MAX_CONNECTIONS", SERVE_DEFAULTS.maxConnections),
    maxConnectionsPerIp: envNumber("MAX_CONNECTIONS_PER_IP", SERVE_DEFAULTS.maxConnectionsPerIp),
    sharedAddress: trustedProxies ?? undefined,
    headerTimeoutMs: envNumber("HTTP_HEADER_TIMEOUT_MS", SERVE_DEFAULTS.headerTimeoutMs),
    bodyTimeoutMs: envNumber("HTTP_BODY_TIMEOUT_MS", SERVE_DEFAULTS.bodyTimeoutMs),
    errorBody: serverErrorBody,
    log: jsonLogger,
    onListen,
    reusePort: workers > 1 || workerOf !== undefined,
    early, // GET /api/search's route before a Request is made: the same answer, for less
    onArrival: noteArrival, // background work stands aside from a request's first bytes
  }, app.fetch);
  stopServer = (graceMs) => server.shutdown(graceMs);
  services.httpFront = () => ({ ...server.stats() });
}
// The request's path too (our server, the route, quota, analytics), on a throwaway app of its
// own served on loopback, while no visitor searches: V8 compiles it then, not on the core a fresh
// process's first visitors' searches wait for (http/warm_path.ts). A failed warm-up only leaves
// that to them, and says so in the log.
if (!deployed) {
  const warmApp = (o: WarmAppOptions) => createApp({ ...o, demo: false, indexSnapshots: false });
  warmRequestPath(warmApp).catch((err) =>
    jsonLogger({ level: "warn", event: "warm_up_failed", error: String(err) })
  );
}

// Listening for signals now, not lazily: Deno sets up its signal pipe on first use and panics if
// that happens while the process is out of file descriptors. Deploy sends SIGINT and waits 5 s.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(signal, () => void stop());
  } catch {
    // Windows has no SIGTERM; a stopped crawl is then taken over once its lease lapses.
  }
}
// A worker ends with the process that started it: its stdin closes then.
if (workerOf) {
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* nothing is ever sent */ }
    await stop();
  })();
}
