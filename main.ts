/** Entry point: reads the environment, opens KV, seeds the demo site, serves. */
import { createApp } from "./app.ts";
import { recoverCrawls } from "./lib/crawl/jobs.ts";
import { ensureDemoSite, operatorToken } from "./lib/demo/site.ts";
import { ensureBuilt } from "./scripts/build.ts";
import { createOpenAISummarizer } from "./lib/answers/model.ts";
import { jsonLogger } from "./lib/http/middleware.ts";
import { SERVE_DEFAULTS, serveHttp } from "./lib/http/server.ts";
import { openResilientKv } from "./lib/storage/kv_retry.ts";

const env = (name: string) => Deno.env.get(name) || undefined;

/** Deno Deploy provides its KV; elsewhere a local file (or DENO_KV_URL for a shared denokv). */
async function openKv(): Promise<Deno.Kv> {
  if (env("DENO_DEPLOYMENT_ID")) return await openResilientKv();
  const target = env("DENO_KV_URL") ?? env("KV_PATH") ?? "./data/sitesearch.kv";
  if (!target.includes("://") && target !== ":memory:") {
    await Deno.mkdir(target.replace(/[^/]*$/, "") || ".", { recursive: true });
  }
  // Retries a lock held by another instance opening the same new file; checks the file (kv_retry.ts).
  return await openResilientKv(target);
}

/** A positive whole number from the environment, else `fallback`. */
const envNumber = (name: string, fallback: number) => {
  const n = Number(env(name));
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

await ensureBuilt(); // widget.js and results.js, when missing or older than widget/
const kv = await openKv();
const token = await operatorToken(kv, env("SITESEARCH_OPERATOR_TOKEN"));
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
  operatorToken: token,
  summarizer,
  summaryIpLimitPerMinute: Number(env("SUMMARY_IP_LIMIT_PER_MINUTE") ?? 30),
  crawl: {
    allowLoopback: env("CRAWL_ALLOW_LOOPBACK") === "true",
    delayMs: Number(env("CRAWL_DELAY_MS") ?? 250),
  },
});
const demo = await ensureDemoSite(services);
await recoverCrawls(services); // jobs of a server that stopped mid-crawl: marked interrupted

const port = Number(env("PORT") ?? 8000);
const hostname = env("HOSTNAME") ?? "127.0.0.1";
const banner = ({ hostname, port }: { hostname: string; port: number }) => {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = `http://${host}:${port}`;
  console.log(`SiteSearch is running at ${url}
  demo site:       ${url}/demo/        (${demo.created ? "created now" : "kept from last run"})
  demo site id:    ${demo.siteId}
  public key:      ${demo.publicKey}
  admin key:       ${demo.adminKey}
  AI answers:      ${
    summarizer
      ? `${env("SUMMARY_MODEL") ?? "gpt-4o-mini"} via OPENAI_API_KEY`
      : "built-in extractive summarizer (set OPENAI_API_KEY for a model)"
  }
  operator token:  ${
    // A token the operator set is theirs to know; printing it would put it in every log.
    env("SITESEARCH_OPERATOR_TOKEN") ? "(from SITESEARCH_OPERATOR_TOKEN, not shown)" : token}
  try:             curl '${url}/api/search?q=shipping&key=${demo.publicKey}'`);
};
if (env("DENO_DEPLOYMENT_ID")) {
  Deno.serve({ port, hostname, onListen: banner }, app.fetch); // Deploy runs its own front end
  // Search analytics gather in memory: write them out before the isolate ends.
  try {
    Deno.addSignalListener("SIGTERM", () => void services.analytics.close().catch(() => {}));
  } catch { /* no signals here */ }
} else {
  // Our own HTTP/1.1 server: bounded connections, head and body deadlines (lib/http/server.ts).
  const server = serveHttp({
    port,
    hostname,
    maxConnections: envNumber("MAX_CONNECTIONS", SERVE_DEFAULTS.maxConnections),
    headerTimeoutMs: envNumber("HTTP_HEADER_TIMEOUT_MS", SERVE_DEFAULTS.headerTimeoutMs),
    bodyTimeoutMs: envNumber("HTTP_BODY_TIMEOUT_MS", SERVE_DEFAULTS.bodyTimeoutMs),
    log: jsonLogger,
    onListen: banner,
  }, app.fetch);
  // Listening for signals now, not lazily: Deno sets up its signal pipe on first use and
  // panics if that happens while the process is out of file descriptors.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    Deno.addSignalListener(signal, async () => {
      await Promise.race([server.shutdown(), new Promise((r) => setTimeout(r, 5000))]);
      await services.analytics.close().catch(() => {}); // counts gathered in memory
      kv.close();
      Deno.exit(0);
    });
  }
}
