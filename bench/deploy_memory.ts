/**
 * Memory without flags (Deno Deploy: no V8 flags, 768 MB an instance). Starts `main.ts` as
 * Deploy does, `deno run -A main.ts` with no `--v8-flags` (so no `--expose-gc`: the forced
 * collections of lib/memory_trim.ts do nothing), DENO_DEPLOY=true (Deno.serve), production
 * mode (an operator token, no demo) and INDEX_MEMORY_MB at its default (256), on a fresh KV
 * file. Then, through the HTTP admin API only:
 *
 * 1. 200 sites × 200 pages (the loadtest's sites: Debian's documentation, bodies cut at 6,000
 *    characters), one PUT of ≤ 500 pages a site, with the site's admin key;
 * 2. one site of 2,000 pages (the corpus whole, topped up with pages recombined from its
 *    paragraphs), 500 a PUT;
 * 3. every site searched, a few queries each (GET /api/search with its public key), one at a time.
 *
 * RSS is sampled every 100 ms from /proc throughout. Prints, per phase, the highest RSS sampled
 * in it, the process's peak so far (VmHWM) and RSS at its end, and what the server counts
 * (/api/admin/stats, no `?gc=1`), against the 768 MB of a Deploy instance; exits 1 when over.
 *
 * `deno run -A bench/deploy_memory.ts`. DEPLOY_MEMORY_FFI=deny also runs the server with
 * `--deny-ffi`, as Deploy has no FFI: no `malloc_trim` and no fixed mmap threshold
 * (lib/memory_trim.ts), which `-A` alone still allows. DEPLOY_MEMORY_SITES, _PAGES,
 * _BIG_PAGES, _QUERIES, _BODY_CHARS and _LIMIT_MB change the shape; DEPLOY_MEMORY_TIMEOUT_S
 * (600) bounds the whole run; DEPLOY_MEMORY_SERVER_DIR runs another checkout's main.ts.
 */
import { loadCorpus, rng } from "./corpus.ts";
import { queryPool, sitePages } from "./memory.ts";
import { procMemory } from "./server.ts";
import type { PageInput } from "../lib/sites/pages.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const SITES = env("DEPLOY_MEMORY_SITES", 200);
const PAGES = env("DEPLOY_MEMORY_PAGES", 200);
const BIG_PAGES = env("DEPLOY_MEMORY_BIG_PAGES", 2_000);
const QUERIES = env("DEPLOY_MEMORY_QUERIES", 3);
const BODY_CHARS = env("DEPLOY_MEMORY_BODY_CHARS", 6_000);
const LIMIT_MB = env("DEPLOY_MEMORY_LIMIT_MB", 768);
const TIMEOUT_S = env("DEPLOY_MEMORY_TIMEOUT_S", 600);
const DENY_FFI = Deno.env.get("DEPLOY_MEMORY_FFI") === "deny";
/** Another checkout's main.ts (e.g. a `git archive` of HEAD while this tree is mid-edit). */
const SERVER_DIR = Deno.env.get("DEPLOY_MEMORY_SERVER_DIR");
const BATCH = 500;
const SAMPLE_MS = 100;

const OPERATOR = "op_deploy_" + crypto.randomUUID().replaceAll("-", "");
const f0 = (x: number) => x.toFixed(0);

/** The 2,000-page site: every corpus page whole, then pages recombined from two of them. */
function bigSite(corpus: PageInput[], n: number): PageInput[] {
  const rand = rng(11);
  // Headings cut to the 200 characters the API takes (a few of Django's run longer).
  const out: PageInput[] = corpus.slice(0, n).map((p) => ({
    ...p,
    url: `/big${p.url}`,
    headings: p.headings?.map((h) => h.slice(0, 200)),
  }));
  for (let i = 0; out.length < n; i++) {
    const a = corpus[Math.floor(rand() * corpus.length)];
    const b = corpus[Math.floor(rand() * corpus.length)];
    out.push({
      url: `/big/generated/${i}`,
      title: `${a.title} and ${b.title}`.slice(0, 200),
      body: a.body.slice(0, 3000) + "\n" + b.body.slice(-3000),
    });
  }
  return out;
}

/** What main.ts reads (and DENO_V8_FLAGS): none of this shell's reaches the server. */
const SERVICE_ENV =
  /^(INDEX_|RESULT_CACHE|SITESEARCH_|SUMMARY_|OPENAI_|CRAWL_|MAX_CONNECTIONS|HTTP_|WORKERS$|KV_PATH$|PORT$|HOSTNAME$|DENO_KV_URL$|DENO_DEPLOY|DENO_V8_FLAGS$)/;
const inherited = () =>
  Object.fromEntries(Object.entries(Deno.env.toObject()).filter(([k]) => !SERVICE_ENV.test(k)));

/** main.ts as Deno Deploy runs it; its URL from its banner, its output drained. */
async function startDeployShaped(kvPath: string) {
  const args = ["run", "-A", ...(DENY_FFI ? ["--deny-ffi"] : []), "main.ts"];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: SERVER_DIR ?? new URL("../", import.meta.url).pathname,
    clearEnv: true,
    env: {
      ...inherited(),
      DENO_DEPLOY: "true",
      KV_PATH: kvPath,
      PORT: "0",
      HOSTNAME: "127.0.0.1",
      SITESEARCH_OPERATOR_TOKEN: OPERATOR,
      OPENAI_API_KEY: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "", err = "";
  let exited = false;
  const status = child.status.then((s) => (exited = true, s));
  const drain = async (
    stream: ReadableStream<Uint8Array<ArrayBuffer>>,
    keep: (t: string) => void,
  ) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) keep(text);
  };
  // The banner is kept whole; after it only the tail (the access log is one line a request).
  const pumping = Promise.all([
    drain(child.stdout, (t) => out = (out + t).slice(-20_000)),
    drain(child.stderr, (t) => err = (err + t).slice(-20_000)),
  ]).catch(() => {});
  let url: string | undefined;
  for (let waited = 0; !url; waited += 50) {
    url = /SiteSearch is running at (http:\/\/\S+)/.exec(out)?.[1];
    if (url) break;
    if (exited || waited > 60_000) {
      if (!exited) child.kill("SIGKILL");
      await status;
      throw new Error(`main.ts did not start:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid,
    args: args.join(" "),
    alive: () => !exited,
    tail: () => `${out.slice(-2_000)}\n${err.slice(-2_000)}`,
    /** SIGINT (Deploy's), then SIGKILL after 5 s. */
    async stop() {
      if (!exited) child.kill("SIGINT");
      const timer = setTimeout(() => !exited && child.kill("SIGKILL"), 5_000);
      const s = await status;
      clearTimeout(timer);
      await pumping;
      return s;
    },
  };
}

/** A JSON call to the server with a bearer credential; throws on an unexpected status. */
async function api(
  origin: string,
  bearer: string,
  path: string,
  init: { method?: string; body?: unknown; expect?: number } = {},
) {
  const res = await fetch(origin + path, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (res.status !== (init.expect ?? 200)) {
    throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${text.slice(0, 500)}`);
  }
  return JSON.parse(text);
}

interface Site {
  id: string;
  publicKey: string;
  adminKey: string;
}

/** An enterprise site (2,000 pages exceed the free plan's 1,000), made by the operator. */
async function createSite(origin: string, name: string): Promise<Site> {
  const made = await api(origin, OPERATOR, "/api/admin/sites", {
    method: "POST",
    body: { name, plan: "enterprise" },
    expect: 201,
  });
  return { id: made.site.id, publicKey: made.publicKey, adminKey: made.adminKey };
}

/** Upserts pages with the site's admin key, BATCH a request; every one must be stored. */
async function putPages(origin: string, site: Site, pages: PageInput[]) {
  for (let i = 0; i < pages.length; i += BATCH) {
    const chunk = pages.slice(i, i + BATCH);
    const { counts, results } = await api(
      origin,
      site.adminKey,
      `/api/admin/sites/${site.id}/pages`,
      {
        method: "PUT",
        body: { pages: chunk },
      },
    );
    if (counts.failed > 0 || counts.created + counts.updated + counts.unchanged !== chunk.length) {
      const failures = results.filter((r: { status: string }) => r.status === "failed");
      throw new Error(
        `put pages into ${site.id}: ${JSON.stringify(counts)} ${
          JSON.stringify(failures.slice(0, 3))
        }`,
      );
    }
  }
}

/** RSS sampled every SAMPLE_MS; the highest since the last `phase()`. */
function sampler(pid: number) {
  let top = 0, samples = 0;
  const read = () => {
    try {
      const m = procMemory(pid);
      top = Math.max(top, m.rss);
      samples++;
      return m;
    } catch {
      return { rss: 0, peak: 0 }; // gone
    }
  };
  const timer = setInterval(read, SAMPLE_MS);
  return {
    /** The phase's highest sample, its end (RSS, VmHWM), and a fresh phase begun. */
    phase() {
      const now = read();
      const out = { top, samples, rss: now.rss, hwm: now.peak };
      top = now.rss;
      samples = 0;
      return out;
    },
    stop: () => clearInterval(timer),
  };
}

/** What the server counts of itself (no collection forced: `?gc=1` needs --expose-gc). */
async function serverCounts(origin: string) {
  const s = await api(origin, OPERATOR, "/api/admin/stats");
  const mb = (b: number) => f0(b / 1048576);
  const ix = s.indexes.pages;
  return `indexes: ${ix.inMemory} held, counted ${mb(ix.estimatedBytes)} of ${
    mb(s.indexes.budgetBytes)
  } MB budget (loaded ${ix.loaded}, built ${ix.built}, evicted ${ix.evicted}); heap ${
    mb(s.memory.heapUsed)
  } of ${mb(s.memory.heapTotal)} MB, external ${mb(s.memory.external)} MB`;
}

if (import.meta.main) {
  const corpus = await loadCorpus();
  if (!corpus.length) {
    console.log("(no corpus: apt-get install -y postgresql-doc-15 python-django-doc python3-doc)");
    Deno.exit(0);
  }
  const { from, queries } = await queryPool(corpus);
  const dir = await Deno.makeTempDir({ prefix: "sitesearch-deploy-memory-" });
  const server = await startDeployShaped(`${dir}/kv.sqlite`);
  const { url: origin, pid } = server;
  const started = performance.now();
  const deadline = setTimeout(() => {
    console.error(`(over ${TIMEOUT_S} s: the server is stopped)`);
    void server.stop();
  }, TIMEOUT_S * 1000);
  const rss = sampler(pid);
  const rows: { phase: string; seconds: number; top: number; rss: number; hwm: number }[] = [];
  let phaseStart = performance.now();
  const endPhase = async (phase: string) => {
    const m = rss.phase();
    const seconds = (performance.now() - phaseStart) / 1000;
    rows.push({ phase, seconds, top: m.top, rss: m.rss, hwm: m.hwm });
    console.log(
      `${phase}: ${seconds.toFixed(1)} s; RSS highest sampled ${f0(m.top)} MB (${m.samples} ` +
        `samples), peak so far (VmHWM) ${f0(m.hwm)} MB, at its end ${f0(m.rss)} MB`,
    );
    console.log(`  ${await serverCounts(origin)}`);
    phaseStart = performance.now();
  };

  let failed: unknown;
  try {
    const deno = (await new Deno.Command(Deno.execPath(), { args: ["--version"] }).output())
      .stdout;
    console.log(
      `## Deploy-shaped memory: ${Deno.execPath()} ${server.args} (no --v8-flags; ` +
        `${new TextDecoder().decode(deno).split("\n")[0]}), DENO_DEPLOY=true, INDEX_MEMORY_MB ` +
        `default, production mode, pid ${pid}; limit ${LIMIT_MB} MB`,
    );
    console.log(
      `corpus: ${corpus.length} pages; ${SITES} sites × ${PAGES} pages (bodies ≤ ${BODY_CHARS} ` +
        `chars), then one of ${BIG_PAGES}; ${QUERIES} queries a site from ${from}`,
    );
    await endPhase("started (idle)");

    const sites: Site[] = [];
    for (let i = 0; i < SITES; i++) {
      const site = await createSite(origin, `Deploy ${i}`);
      await putPages(origin, site, sitePages(corpus, i, PAGES, BODY_CHARS));
      sites.push(site);
    }
    await endPhase(`ingest of ${SITES} × ${PAGES}`);

    const big = await createSite(origin, "Deploy big");
    await putPages(origin, big, bigSite(corpus, BIG_PAGES));
    sites.push(big);
    await endPhase(`ingest of one site of ${BIG_PAGES}`);

    let searches = 0, non200 = 0;
    const times: number[] = [];
    for (const [i, site] of sites.entries()) {
      for (let j = 0; j < QUERIES; j++) {
        const q = queries[(i * QUERIES + j) % queries.length];
        const t = performance.now();
        const res = await fetch(
          `${origin}/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`,
        );
        await res.arrayBuffer();
        times.push(performance.now() - t);
        searches++;
        if (res.status !== 200) non200++;
      }
    }
    times.sort((a, b) => a - b);
    console.log(
      `searches: ${searches} over ${sites.length} sites, ${non200} not 200; p50 ${
        times[Math.floor(times.length / 2)].toFixed(1)
      } ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
    await endPhase(`searching all ${sites.length} sites`);
  } catch (err) {
    failed = err;
    console.error(`failed after ${((performance.now() - started) / 1000).toFixed(0)} s:`, err);
    if (!server.alive()) console.error(`the server is gone:\n${server.tail()}`);
  } finally {
    clearTimeout(deadline);
    rss.stop();
    const status = await server.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    const peak = Math.max(...rows.map((r) => Math.max(r.top, r.hwm)), 0);
    console.log(
      `\nphase | seconds | highest RSS sampled | VmHWM so far | RSS at its end (MB)\n` +
        rows.map((r) =>
          `${r.phase} | ${r.seconds.toFixed(1)} | ${f0(r.top)} | ${f0(r.hwm)} | ${f0(r.rss)}`
        ).join("\n"),
    );
    console.log(
      `peak ${f0(peak)} MB against ${LIMIT_MB} MB: ${
        failed ? "incomplete" : peak < LIMIT_MB ? "within" : "OVER"
      }; total ${
        ((performance.now() - started) / 1000).toFixed(0)
      } s; server exit code ${status.code}${status.signal ? ` (${status.signal})` : ""}`,
    );
    if (failed || peak >= LIMIT_MB) Deno.exitCode = 1;
  }
}
