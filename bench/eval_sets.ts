/**
 * The evaluation sets: real documentation sites installed by Debian, each served on
 * 127.0.0.1 and crawled whole as an owner would get it indexed, the site's own index
 * pages left out. The shared sets' judgments come from ../shared/eval; git-doc's are
 * derived from the site's own structure (derivedGitSet): nobody wrote them for the engine.
 */
import { createApp } from "../app.ts";
import { startCrawlJob } from "../lib/crawl/jobs.ts";
import type { Services } from "../lib/services.ts";

/** Where the shared judgments are: beside the repository, or beside its worktree folder. */
export const EVAL_DIR = Deno.env.get("EVAL_DIR") ??
  ["../../shared/eval", "../../../shared/eval"].map((p) => new URL(p, import.meta.url).pathname)
    .find((p) => {
      try {
        return Deno.statSync(`${p}/evaluate.py`).isFile;
      } catch {
        return false;
      }
    }) ??
  "../shared/eval";

/** The site's own index pages: they contain every query and link to every answer. */
export const SKIP = /(^|\/)(genindex[^/]*|py-modindex|search)\.html$/;

export interface EvalSet {
  name: string;
  root: string;
  start: string;
  /** Paths of the judgment files (evaluate.py's and score_answers.py's format). */
  plain: string;
  typo: string;
  faq: string;
}

const shared = (name: string, root: string): EvalSet => ({
  name,
  root,
  start: "/index.html",
  plain: `${EVAL_DIR}/${name}_judgments.json`,
  typo: `${EVAL_DIR}/${name}_judgments_typo.json`,
  faq: `${EVAL_DIR}/${name}_faq.json`,
});

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

/** Every set whose site is installed; `only` keeps those named. */
export async function evalSets(only: string[] = []): Promise<EvalSet[]> {
  const sets = [
    shared("django", "/usr/share/doc/python-django-doc/html"),
    shared("scrapy", "/usr/share/doc/python-scrapy-doc/html"),
    shared("celery", "/usr/share/doc/python-celery-doc/html"),
  ];
  const out: EvalSet[] = [];
  for (const s of sets) if (await exists(s.root)) out.push(s);
  const wanted = (name: string) => !only.length || only.includes(name);
  if (wanted("git") && await exists("/usr/share/doc/git-doc/gitfaq.html")) {
    out.push(await derivedGitSet());
  }
  return out.filter((s) => wanted(s.name));
}

/** Temporary folders of derived judgments, removed by `disposeSets`. */
const made: string[] = [];

/** Removes the derived judgments' files. */
export async function disposeSets() {
  for (const dir of made.splice(0)) await Deno.remove(dir, { recursive: true });
}

const text = (html: string) =>
  html.replace(/<[^>]+>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#8217;/g, "’").replace(/&amp;/g, "&")
    .replace(/\s+/g, " ").trim();

/** One typing error, always the same: the longest word's two middle letters swapped. */
function typo(query: string): string | null {
  const words = query.split(" ");
  let at = -1;
  words.forEach((w, i) => {
    if (/^[a-z]{5,}$/.test(w) && (at < 0 || w.length > words[at].length)) at = i;
  });
  if (at < 0) return null;
  const w = words[at], m = Math.floor(w.length / 2);
  if (w[m - 1] === w[m]) return null;
  words[at] = w.slice(0, m - 1) + w[m] + w[m - 1] + w.slice(m + 1);
  return words.join(" ");
}

/**
 * git-doc (asciidoc, not Sphinx): a manual page's NAME line ("git-commit - Record changes
 * to the repository") gives a query (its description) and the page it names; gitfaq's
 * definition list gives the FAQ (each term that ends in "?" is a question, its definition
 * the gold answer). Written to temporary files in the shared formats.
 */
async function derivedGitSet(): Promise<EvalSet> {
  const root = "/usr/share/doc/git-doc";
  const byQuery = new Map<string, string[]>();
  for await (const e of Deno.readDir(root)) {
    if (!e.isFile || !e.name.endsWith(".html")) continue;
    const html = await Deno.readTextFile(`${root}/${e.name}`);
    const m = /<h2>NAME<\/h2>\s*<div class="sectionbody">\s*<p>([\s\S]*?)<\/p>/.exec(html);
    const desc = m ? text(m[1]).split(/ - /).slice(1).join(" - ") : "";
    if (desc.length < 8) continue;
    byQuery.set(desc, [...(byQuery.get(desc) ?? []), `/${e.name}`]);
  }
  const plain = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1).map(([query, pages], i) => ({
    id: `git${String(i).padStart(3, "0")}`,
    query,
    relevant: pages,
    grades: Object.fromEntries(pages.map((p) => [p, 2])),
    kind: "name",
  }));
  const typos = plain.flatMap((j) => {
    const q = typo(j.query);
    return q ? [{ ...j, query: q }] : [];
  });
  const faqHtml = await Deno.readTextFile(`${root}/gitfaq.html`);
  const faq = [...faqHtml.matchAll(/<dt class="hdlist1">([\s\S]*?)<\/dt>\s*<dd>([\s\S]*?)<\/dd>/g)]
    .map((m) => ({ q: text(m[1]), gold: text(m[2]) }))
    .filter((x) => x.q.endsWith("?") && x.gold.length >= 40)
    .map((x, i) => ({
      id: `faq${String(i).padStart(3, "0")}`,
      query: x.q,
      page: "/gitfaq.html",
      gold: x.gold.slice(0, 4000),
    }));
  const dir = await Deno.makeTempDir();
  made.push(dir);
  const write = async (name: string, judgments: unknown[]) => {
    await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify({ judgments }));
    return `${dir}/${name}`;
  };
  return {
    name: "git",
    root,
    start: "/index.html",
    plain: await write("git_judgments.json", plain),
    typo: await write("git_judgments_typo.json", typos),
    faq: await write("git_faq.json", faq),
  };
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  js: "text/javascript",
  png: "image/png",
  txt: "text/plain",
};

/** A static file server for a site on 127.0.0.1, its index pages left out. */
function serve(root: string) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    let path = decodeURIComponent(new URL(req.url).pathname);
    if (path.endsWith("/")) path += "index.html";
    if (SKIP.test(path) || path.split("/").includes("..")) {
      return new Response("gone", { status: 404 });
    }
    try {
      const body = await Deno.readFile(root + path);
      const type = TYPES[path.split(".").pop() ?? ""] ?? "application/octet-stream";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return { server, origin: `http://127.0.0.1:${server.addr.port}` };
}

export interface Crawled {
  services: Services;
  app: ReturnType<typeof createApp>["app"];
  siteId: string;
  publicKey: string;
  pages: number;
  seconds: number;
  close: () => Promise<void>;
}

/** Serves a set's site (its index pages answer 404) and crawls it into a fresh app. */
export async function crawlSet(set: EvalSet): Promise<Crawled> {
  const docs = serve(set.root);
  const kv = await Deno.openKv(":memory:");
  const { app, services } = createApp({
    kv,
    log: () => {},
    summaryIpLimitPerMinute: 1_000_000,
    crawl: { allowLoopback: true, delayMs: 0 },
  });
  const { site, publicKey } = await services.sites.create({ name: set.name, plan: "enterprise" });
  const t0 = performance.now();
  const started = await startCrawlJob(services, site, { url: `${docs.origin}${set.start}` }, {
    tuning: { concurrency: 2, workers: 4 },
  });
  await started.done;
  const { pages } = await services.pages.version(site.id);
  return {
    services,
    app,
    siteId: site.id,
    publicKey,
    pages,
    seconds: (performance.now() - t0) / 1000,
    close: async () => {
      services.analytics.discard();
      services.quota.discard();
      services.indexes.discard();
      kv.close();
      await docs.server.shutdown();
    },
  };
}
