/**
 * deno task crawl <site-id> <url> [--max-pages N]
 *
 * Crawls one site in this process, against the same KV as the server (KV_PATH or
 * DENO_KV_URL, default ./data/sitesearch.kv), as a job the API can see; the site lock
 * is shared, so it never runs beside a crawl the server started. Progress goes to
 * stderr; Ctrl-C stops the crawl and marks the job interrupted.
 * CRAWL_ALLOW_LOOPBACK=true and CRAWL_DELAY_MS work as for the server.
 */
import { startCrawlJob } from "../lib/crawl/jobs.ts";
import type { CrawlCounts, CrawlProgress } from "../lib/crawl/report.ts";
import { DomainError } from "../lib/errors.ts";
import { statusOf } from "../lib/http/errors.ts";
import { parse, StartCrawl } from "../lib/http/schemas.ts";
import { createServices } from "../lib/services.ts";

const USAGE = "usage: deno task crawl <site-id> <url> [--max-pages N]";
const env = (name: string) => Deno.env.get(name) || undefined;

function args(argv: string[]) {
  const positional: string[] = [];
  let maxPages: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-h" || a === "--help") exit(0, USAGE);
    const m = /^--max-pages(?:=(.*))?$/.exec(a);
    if (m) {
      const v = m[1] ?? argv[++i];
      if (!/^\d+$/.test(v ?? "")) exit(2, `--max-pages needs a whole number\n${USAGE}`);
      maxPages = Number(v);
    } else if (a.startsWith("-")) exit(2, `unknown option ${a}\n${USAGE}`);
    else positional.push(a);
  }
  if (positional.length !== 2) exit(2, USAGE);
  return { siteId: positional[0], url: positional[1], maxPages };
}

function exit(code: number, message: string): never {
  (code ? console.error : console.log)(message);
  Deno.exit(code);
}

/** One status line: a bar of pages done out of those the crawl may store, the counts, the rate. */
function line(c: CrawlCounts, p: CrawlProgress, startedAt: number, width = 24): string {
  const filled = Math.round((p.done / Math.max(p.total, 1)) * width);
  const rate = (c.indexed + c.unchanged) / Math.max(0.001, (performance.now() - startedAt) / 1000);
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${p.done}/${p.total} pages  ` +
    `indexed ${c.indexed}  unchanged ${c.unchanged}  skipped ${c.skipped}  ` +
    `failed ${c.failed}  ${rate.toFixed(1)} pages/s`;
}

const { siteId, url, maxPages } = args(Deno.args);
const target = env("DENO_KV_URL") ?? env("KV_PATH") ?? "./data/sitesearch.kv";
const kv = await Deno.openKv(target);
const s = createServices({
  kv,
  log: (l) => void (l.level === "error" && console.error(JSON.stringify(l))),
  crawl: {
    allowLoopback: env("CRAWL_ALLOW_LOOPBACK") === "true",
    delayMs: Number(env("CRAWL_DELAY_MS") ?? 250),
  },
});
const site = await s.sites.get(siteId);
if (!site) exit(2, `No site with id ${JSON.stringify(siteId)} in ${target}.`);

let started;
try {
  started = await startCrawlJob(s, site, parse(StartCrawl, { url, maxPages }));
} catch (err) {
  if (err instanceof DomainError) {
    exit(statusOf(err) === 409 ? 1 : 2, `${err.code}: ${err.message}`);
  }
  throw err;
}
const { counts, progress, done, stop } = started;
const t0 = performance.now();
const tty = Deno.stderr.isTerminal();
const out = new TextEncoder();
const draw = (end = "") =>
  Deno.stderr.writeSync(out.encode(`${tty ? "\r\x1b[2K" : ""}${line(counts, progress, t0)}${end}`));
console.error(`crawl ${started.job.id} of ${site.name} (${site.id}) from ${url}`);
const timer = setInterval(() => tty ? draw() : draw("\n"), tty ? 200 : 5000);
const onInt = () => stop();
Deno.addSignalListener("SIGINT", onInt);
const job = await done;
clearInterval(timer);
Deno.removeSignalListener("SIGINT", onInt);
draw("\n");

console.log(`status: ${job.status}${job.error ? ` (${job.error})` : ""}`);
console.log(Object.entries(job.counts).map(([k, v]) => `${k} ${v}`).join(", "));
const reasons = Object.entries(job.reasons).sort((a, b) => b[1] - a[1]);
if (reasons.length) {
  console.log(`not indexed, by reason: ${reasons.map(([r, n]) => `${r} ${n}`).join(", ")}`);
}
console.log(`details: GET /api/admin/sites/${site.id}/crawl/${job.id}`);
kv.close();
Deno.exit(job.status === "done" ? 0 : 1);
