/**
 * Entry point: reads the environment, opens KV, starts the crawl worker, serves.
 * Zero configuration gives the local demo (a demo site, keys printed). Production mode
 * (SITESEARCH_OPERATOR_TOKEN set, or SITESEARCH_DEMO=false) creates no demo site and
 * prints no secret. Nothing here needs a writable disk or Deno.listen beyond Deno.serve.
 */
import { createApp } from "./app.ts";
import { startCrawlWorker } from "./lib/crawl/worker.ts";
import { ensureDemoSite, operatorToken } from "./lib/demo/site.ts";
import { ensureBuilt } from "./scripts/build.ts";
import { createOpenAISummarizer } from "./lib/answers/model.ts";

const env = (name: string) => Deno.env.get(name) || undefined;
const onDeploy = env("DENO_DEPLOY") === "true" || env("DENO_DEPLOYMENT_ID") !== undefined;

/** Deno Deploy provides its KV; elsewhere DENO_KV_URL (a shared denokv), KV_PATH, or a local file. */
async function openKv(): Promise<Deno.Kv> {
  if (onDeploy) return await Deno.openKv();
  const target = env("DENO_KV_URL") ?? env("KV_PATH") ?? "./data/sitesearch.kv";
  if (!target.includes("://") && target !== ":memory:") {
    await Deno.mkdir(target.replace(/[^/]*$/, "") || ".", { recursive: true });
  }
  return await Deno.openKv(target);
}

const production = env("SITESEARCH_OPERATOR_TOKEN") !== undefined ||
  env("SITESEARCH_DEMO") === "false";
// Deploy registers crons from top-level code before Deno.serve: declare it first thing.
const cron = typeof Deno.cron === "function" ? Deno.cron : null;
const recrawlTick = Promise.withResolvers<() => Promise<void>>();
cron?.("sitesearch-recrawl", "17 * * * *", async () => await (await recrawlTick.promise)());

if (!onDeploy) await ensureBuilt(); // widget.js and results.js, when missing or stale (local only)
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
const { app, services } = createApp({
  kv,
  operatorTokenHash: token.hash,
  demo: !production,
  summarizer,
  summaryIpLimitPerMinute: Number(env("SUMMARY_IP_LIMIT_PER_MINUTE") ?? 30),
  crawl: {
    allowLoopback: env("CRAWL_ALLOW_LOOPBACK") === "true",
    delayMs: Number(env("CRAWL_DELAY_MS") ?? 250),
  },
});
const demo = production ? null : await ensureDemoSite(services);
const worker = startCrawlWorker(services, {
  staleMs: env("CRAWL_STALE_MS") ? Number(env("CRAWL_STALE_MS")) : undefined,
  cron: cron !== null,
});
recrawlTick.resolve(worker.recrawlDue);
// Deploy sends SIGINT and waits 5 s: crawl steps running here go back to the queue at once.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(signal, async () => {
      await worker.shutdown().catch(() => {});
      Deno.exit(0);
    });
  } catch {
    // Windows has no SIGTERM; a stopped step is then handed on once its heartbeat is stale.
  }
}

const port = Number(env("PORT") ?? 8000);
const hostname = env("HOSTNAME") ?? (onDeploy ? "0.0.0.0" : "127.0.0.1");
Deno.serve({
  port,
  hostname,
  onListen: ({ hostname, port }) => {
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
  ready:           curl '${url}/healthz'`);
      return;
    }
    const operator = token.created
      ? `${token.created} (generated now and shown once: only its hash is kept)`
      : env("SITESEARCH_OPERATOR_TOKEN")
      ? "from SITESEARCH_OPERATOR_TOKEN"
      : "(shown on the first run only; set SITESEARCH_OPERATOR_TOKEN to choose one)";
    console.log(`SiteSearch is running at ${url}
  demo site:       ${url}/demo/        (${demo.created ? "created now" : "kept from last run"})
  demo site id:    ${demo.siteId}
  public key:      ${demo.publicKey}
  admin key:       ${demo.adminKey}
  AI answers:      ${ai}
  operator token:  ${operator}
  try:             curl '${url}/api/search?q=shipping&key=${demo.publicKey}'`);
  },
}, app.fetch);
