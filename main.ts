/** Entry point: reads the environment, opens KV, seeds the demo site, serves. */
import { createApp } from "./app.ts";
import { recoverCrawls } from "./lib/crawl/jobs.ts";
import { ensureDemoSite, operatorToken } from "./lib/demo/site.ts";
import { ensureBuilt } from "./scripts/build.ts";
import { createOpenAISummarizer } from "./lib/answers/model.ts";

const env = (name: string) => Deno.env.get(name) || undefined;

/** Deno Deploy provides its KV; elsewhere a local file (or DENO_KV_URL for a shared denokv). */
async function openKv(): Promise<Deno.Kv> {
  if (env("DENO_DEPLOYMENT_ID")) return await Deno.openKv();
  const target = env("DENO_KV_URL") ?? env("KV_PATH") ?? "./data/sitesearch.kv";
  if (!target.includes("://") && target !== ":memory:") {
    await Deno.mkdir(target.replace(/[^/]*$/, "") || ".", { recursive: true });
  }
  return await Deno.openKv(target);
}

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

// Search analytics gather in memory: write them out before the process ends.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(signal, () => {
      services.analytics.close().catch(() => {}).finally(() => Deno.exit(0));
    });
  } catch { /* a platform without this signal */ }
}

const port = Number(env("PORT") ?? 8000);
const hostname = env("HOSTNAME") ?? "127.0.0.1";
Deno.serve({
  port,
  hostname,
  onListen: ({ hostname, port }) => {
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
  operator token:  ${token}${
      env("SITESEARCH_OPERATOR_TOKEN") ? " (from SITESEARCH_OPERATOR_TOKEN)" : ""
    }
  try:             curl '${url}/api/search?q=shipping&key=${demo.publicKey}'`);
  },
}, app.fetch);
