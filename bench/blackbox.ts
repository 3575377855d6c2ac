/**
 * The figures we publish, as users get them: the service started exactly as README says
 * (`deno task start`, its own process, a fresh KV in a temp folder) and measured only over HTTP
 * on 127.0.0.1, the way ../shared/bench/blackbox.py does (same corpus, queries and steps):
 *
 * - search: 2,400 pages of Debian's Django, Celery, Scrapy, git and pandas documentation in one
 *   site; RSS growth per 1,000 pages 2 s after the upsert; 400 first-seen judged queries one at
 *   a time over keep-alive (p50, p99); wrk, 50 connections cycling every judged query (p99), and
 *   again once each has been asked (not a target: it shows what the first pass costs); a
 *   repeated query against a bare `Deno.serve` of the same bytes (requests per second, ratio);
 *   then the same pages into a second site (RSS growth at 2 s and 8 s, not a target).
 * - scale (skipped with BLACKBOX_SCALE=0; ~5 min): 200 sites × 200 pages and one of 2,000 at
 *   INDEX_MEMORY_MB=300; RSS after a warm round, warm p99 over the 200 sites, and the first
 *   search of the 2,000-page site after a restart.
 *
 * `deno run -A bench/blackbox.ts`, or from run.ts. Needs the doc packages (apt-get install -y
 * python-django-doc python-celery-doc python-scrapy-doc git-doc python-pandas-doc) and wrk.
 */
import { dirname } from "node:path";
import { percentile } from "./corpus.ts";
import { haveWrk, wrk } from "./wrk.ts";
import { rssMb } from "./server.ts";
import { bare } from "./front_box.ts";
import { EVAL_DIR } from "./eval_sets.ts";

const OPERATOR = "op_blackbox_" + "x".repeat(24);
const ROOT = new URL("../", import.meta.url).pathname;
/** The targets of the speed issue: each figure is printed beside its own. */
export const TARGETS = {
  rss: 15,
  p50: 1.0,
  p99: 3.0,
  wrk99: 30,
  ratio: 0.75,
  many: 400,
  warm99: 3.0,
  cold: 100,
} as const;
const CORPORA = [
  ["/usr/share/doc/python-django-doc/html", "/dj"],
  ["/usr/share/doc/python-celery-doc/html", "/ce"],
  ["/usr/share/doc/python-scrapy-doc/html", "/sc"],
  ["/usr/share/doc/git-doc", "/git"],
  ["/usr/share/doc/python-pandas-doc/html", "/pd"],
] as const;
const SKIP =
  /(^|\/)(genindex[^/]*|search|py-modindex|bookindex)\.html$|(^|\/)_(static|sources|images|modules)\//;

interface Page {
  url: string;
  title: string;
  body: string;
}

/** The service as README starts it, on a free port, with its own KV file unless given one. */
class Service {
  readonly base: string;
  private constructor(readonly child: Deno.ChildProcess, readonly kv: string, port: number) {
    this.base = `http://127.0.0.1:${port}`;
  }

  static async start(env: Record<string, string> = {}, kv?: string, port?: number) {
    const p = port ?? freePort();
    const file = kv ?? `${await Deno.makeTempDir({ prefix: "blackbox-" })}/kv.sqlite3`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "start"],
      cwd: ROOT,
      env: {
        PORT: String(p),
        HOSTNAME: "127.0.0.1",
        KV_PATH: file,
        SITESEARCH_OPERATOR_TOKEN: OPERATOR,
        NO_COLOR: "1",
        OPENAI_API_KEY: "",
        MAX_CONNECTIONS_PER_IP: "256", // wrk is one client address with 50 connections
        ...env,
      },
      stdout: "null",
      stderr: "null",
    }).spawn();
    const svc = new Service(child, file, p);
    for (const end = Date.now() + 240_000; Date.now() < end;) {
      try {
        await (await fetch(svc.base + "/healthz")).body?.cancel();
        return svc;
      } catch {
        await new Promise((r) => setTimeout(r, 300));
      }
    }
    throw new Error("the service did not answer in 240 s");
  }

  async admin(method: string, path: string, body?: unknown, token = OPERATOR) {
    const res = await fetch(this.base + "/api/admin" + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  /** An enterprise site with no search limit, holding `pages`; its public key. */
  async site(name: string, pages: Page[]): Promise<string> {
    const made = await this.admin("POST", "/sites", { name, plan: "enterprise" });
    const id = made.body.site.id;
    await this.admin("PATCH", `/sites/${id}`, {
      limits: { searchesPerMinute: 1e9, searchesPerMonth: null },
    });
    for (let i = 0; i < pages.length; i += 250) {
      const put = await this.admin("PUT", `/sites/${id}/pages`, {
        pages: pages.slice(i, i + 250),
      }, made.body.adminKey);
      if (put.status !== 200 && put.status !== 207) throw new Error(`upsert: ${put.status}`);
    }
    return made.body.publicKey;
  }

  /** Resident memory of `deno task` and the server it runs, the largest (as blackbox.py). */
  rss(): number {
    const kids = Deno.readTextFileSync(`/proc/${this.child.pid}/task/${this.child.pid}/children`)
      .trim().split(/\s+/).filter(Boolean).map(Number);
    return Math.max(rssMb(this.child.pid), ...kids.map((k) => rssMb(k)));
  }

  async stop() {
    try {
      this.child.kill("SIGTERM");
    } catch { /* gone */ }
    await this.child.status;
  }

  /** Removes the KV's folder, stopped (a 2,000-page site's KV and page text take ~1.3 GB). */
  async discard() {
    await Deno.remove(dirname(this.kv), { recursive: true }).catch(() => {});
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };
const unescape = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|#39|#(\d+)|#x([0-9a-f]+));/gi,
    (_, name, d, x) =>
      d ? String.fromCodePoint(+d) : x ? String.fromCodePoint(parseInt(x, 16)) : entities[name],
  );

/** Title and main text as blackbox.py reads them (the role="main" part, tags stripped). */
function textOf(html: string): [string, string] {
  const t = /<title>(.*?)<\/title>/is.exec(html);
  const title = t ? t[1].replace(/<[^>]+>|\s+/g, " ").trim() : "";
  const main = /<div[^>]+role="main"[^>]*>(.*)/s.exec(html);
  const body = (main ? main[1] : html).replace(/<(script|style)\b.*?<\/\1>/gis, " ");
  return [unescape(title), unescape(body.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ").trim()];
}

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const e of entries) {
    if (e.isDirectory) yield* walk(`${dir}/${e.name}`);
    else if (e.isFile) yield `${dir}/${e.name}`;
  }
}

/** The five documentation sites' pages, in blackbox.py's order, up to `limit`. */
async function corpus(limit = Infinity): Promise<Page[]> {
  const out: Page[] = [];
  for (const [root, prefix] of CORPORA) {
    try {
      await Deno.stat(root);
    } catch {
      console.log(`  (not installed: ${root})`);
      continue;
    }
    for await (const file of walk(root)) {
      const rel = file.slice(root.length + 1);
      if (!rel.endsWith(".html") || SKIP.test(rel)) continue;
      const [title, body] = textOf(await Deno.readTextFile(file));
      if (body) {
        out.push({ url: `${prefix}/${rel}`, title: title || rel, body: body.slice(0, 60000) });
      }
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/** Every judged query of the shared sets, once each (as blackbox.py gathers them). */
async function queries(): Promise<string[]> {
  const qs: string[] = [];
  try {
    const files = [...Deno.readDirSync(EVAL_DIR)].map((e) => e.name).filter((n) =>
      n.endsWith(".json") && n.includes("judgments")
    ).sort();
    for (const f of files) {
      const { judgments } = JSON.parse(await Deno.readTextFile(`${EVAL_DIR}/${f}`));
      qs.push(...judgments.map((j: { query: string }) => j.query.slice(0, 200)));
    }
  } catch { /* no judged queries: page titles stand in */ }
  return [...new Set(qs)];
}

const row = (name: string, value: number, unit: string, target: number, higher = false) => {
  const ok = higher ? value >= target : value <= target;
  console.log(
    `  ${name.padEnd(62)} ${value.toFixed(2).padStart(9)} ${unit.padEnd(5)} target ${
      higher ? ">=" : "<="
    } ${String(target).padEnd(5)} ${ok ? "ok" : "SHORT"}`,
  );
};

const searchPath = (key: string, q: string) => `/api/search?${new URLSearchParams({ q, key })}`;

/** One search over a kept-alive connection (fetch keeps it), its latency in ms. */
async function timed(base: string, path: string): Promise<number> {
  const t = performance.now();
  await (await fetch(base + path)).arrayBuffer();
  return performance.now() - t;
}

/** The one-big-site figures. */
export async function blackBoxSearch() {
  const pages = await corpus(2400);
  let qs = await queries();
  if (!qs.length) qs = pages.slice(0, 400).map((p) => p.title);
  console.log(`\n## Black box: search (${pages.length} pages in one site, ${qs.length} queries)`);
  const svc = await Service.start();
  let lat: number[] = [], before = 0, after = 0, body = new Uint8Array();
  let distinct = null, again = null, repeated = null, second: number[] = [];
  try {
    await svc.admin("POST", "/sites", { name: "warm", plan: "enterprise" });
    before = svc.rss();
    const key = await svc.site("one big site", pages);
    await new Promise((r) => setTimeout(r, 2000));
    after = svc.rss();
    for (const q of qs.slice(0, 400)) lat.push(await timed(svc.base, searchPath(key, q)));
    lat = lat.sort((a, b) => a - b);
    if (await haveWrk()) {
      distinct = await wrk(svc.base, qs.map((q) => searchPath(key, q)), 50, 10);
      again = await wrk(svc.base, qs.map((q) => searchPath(key, q)), 50, 10);
      const same = searchPath(key, "middleware");
      body = new Uint8Array(await (await fetch(svc.base + same)).arrayBuffer());
      repeated = await wrk(svc.base, [same], 50, 10);
    }
    second = await secondUpsert(svc, pages);
  } finally {
    await svc.stop();
    await svc.discard();
  }
  row(
    "RSS growth per 1,000 pages, 2 s after the upsert",
    (after - before) / pages.length * 1000,
    "MB",
    TARGETS.rss,
  );
  row(
    "one at a time over keep-alive, first-seen queries: p50",
    percentile(lat, 50),
    "ms",
    TARGETS.p50,
  );
  row(
    "one at a time over keep-alive, first-seen queries: p99",
    lat[Math.floor(lat.length * .99) - 1],
    "ms",
    TARGETS.p99,
  );
  if (!distinct || !repeated) {
    console.log("  (wrk not installed: apt-get install -y wrk)");
    return secondRow(second, pages.length);
  }
  const bare = await bareServe(body);
  row(
    `wrk 50 connections, the queries cycled: p99 (${distinct.rps.toFixed(0)} req/s)`,
    distinct.p99,
    "ms",
    TARGETS.wrk99,
  );
  // Not a target: the same run once every query has an answer cached. The gap between the two
  // is the first pass's queue (BENCHMARKS.md, "Where wrk's p99 goes").
  if (again) {
    console.log(
      `  ${`(the same, every query asked once before: ${again.rps.toFixed(0)} req/s)`.padEnd(62)} ${
        again.p99.toFixed(2).padStart(9)
      } ms`,
    );
  }
  row(
    `a repeated query / bare Deno.serve of the same ${body.length} bytes`,
    repeated.rps / bare,
    "ratio",
    TARGETS.ratio,
    true,
  );
  secondRow(second, pages.length);
}

/**
 * Not targets: RSS growth per 1,000 pages when the same pages go into a second site of the same
 * process (secondUpsert). The first upsert's figure also holds what a process pays once
 * (BENCHMARKS.md, "Memory right after an ingest"); these show what more pages cost.
 */
function secondRow([at2, at8]: number[], pages: number) {
  const per = (mb: number) => (mb / pages * 1000).toFixed(2);
  console.log(
    `  ${"(the same pages into a second site, per 1,000: at 2 s, at 8 s)".padEnd(62)} ${
      per(at2).padStart(9)
    } MB, ${per(at8)} MB`,
  );
}

/**
 * RSS growth (MB) 2 s and 8 s after `pages` are upserted into a second site, once the service
 * has been quiet for 10 s: the memory more pages cost, without what the first ingest pays once.
 */
async function secondUpsert(svc: Service, pages: Page[]): Promise<number[]> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(10_000);
  const before = svc.rss();
  await svc.site("a second big site", pages);
  await sleep(2000);
  const at2 = svc.rss() - before;
  await sleep(6000);
  return [at2, svc.rss() - before];
}

/** Requests per second of a bare Deno.serve answering `body` (front_box.ts's bare server). */
async function bareServe(body: Uint8Array): Promise<number> {
  const dir = await Deno.makeTempDir();
  const server = await bare(body, dir);
  try {
    return (await wrk(server.origin, ["/"], 50, 10)).rps;
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A seeded random choice, as the run must be the same each time. */
function seeded(seed = 7) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** The 200-site figures, and the first search after a restart. */
export async function blackBoxScale() {
  const pages = await corpus();
  const rnd = seeded();
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const sample = (n: number) => [...pages].sort(() => rnd() - 0.5).slice(0, n);
  const words = [
    "model",
    "query",
    "settings",
    "template",
    "task",
    "spider",
    "commit",
    "branch",
    "index",
    "frame",
  ];
  console.log(
    `\n## Black box: scale (200 sites × 200 pages and one of 2,000, INDEX_MEMORY_MB=300)`,
  );
  const env = { INDEX_MEMORY_MB: "300" };
  const svc = await Service.start(env);
  let warm: number[] = [], rss = 0, big = "";
  const port = Number(new URL(svc.base).port);
  try {
    const keys = [];
    for (let i = 0; i < 200; i++) keys.push(await svc.site(`s${i}`, sample(200)));
    big = await svc.site("big", pages.slice(0, 2000));
    for (const k of keys) await timed(svc.base, searchPath(k, "index"));
    for (let i = 0; i < 2000; i++) {
      warm.push(await timed(svc.base, searchPath(pick(keys), pick(words))));
    }
    warm = warm.sort((a, b) => a - b);
    rss = svc.rss();
    await timed(svc.base, searchPath(big, "commit"));
    await new Promise((r) => setTimeout(r, 2000));
  } finally {
    await svc.stop();
  }
  const again = await Service.start(env, svc.kv, port);
  let cold = 0;
  try {
    cold = await timed(again.base, searchPath(big, "merge conflict"));
  } finally {
    await again.stop();
    await svc.discard(); // the KV both ran on
  }
  row("RSS right after the warm round (200 × 200 and one of 2,000)", rss, "MB", TARGETS.many);
  row(
    "warm p99 over the 200 sites, one at a time",
    warm[Math.floor(warm.length * .99)],
    "ms",
    TARGETS.warm99,
  );
  row("first search of the 2,000-page site after a restart", cold, "ms", TARGETS.cold);
}

if (import.meta.main) {
  await blackBoxSearch();
  if (Deno.env.get("BLACKBOX_SCALE") !== "0") await blackBoxScale();
}
