/**
 * The evaluation sets: real documentation sites installed by Debian, each served on
 * 127.0.0.1 and crawled whole as an owner would get it indexed, the site's own index
 * pages left out. The shared sets' judgments come from ../shared/eval; the others' are
 * derived from each site's own structure (eval_derived.ts): nobody wrote them for the engine.
 */
import { createApp } from "../app.ts";
import { startCrawlJob } from "../lib/crawl/jobs.ts";
import type { Services } from "../lib/services.ts";
import {
  type Derived,
  docbookFaq,
  gitDoc,
  manPages,
  nestedDlIndex,
  sphinxIndex,
  texinfoIndexPages,
  texinfoManual,
  typos,
  wikiListPages,
  wikiLists,
} from "./eval_derived.ts";

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
  /** Absent where the site has no FAQ. */
  faq?: string;
  /** How-to questions made from the site's gerund section headings (extract_howto.py). */
  howto?: string;
  /** More of the site's own index pages to leave out, beside SKIP's (paths). */
  skip?: RegExp;
}

const shared = (name: string, root: string): EvalSet => ({
  name,
  root,
  start: "/index.html",
  plain: `${EVAL_DIR}/${name}_judgments.json`,
  typo: `${EVAL_DIR}/${name}_judgments_typo.json`,
  faq: `${EVAL_DIR}/${name}_faq.json`,
  howto: `${EVAL_DIR}/${name}_howto.json`,
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
  for (const s of sets) {
    if (!(await exists(s.root))) continue;
    out.push(s.howto && await exists(s.howto) ? s : { ...s, howto: undefined });
  }
  const wanted = (name: string) => !only.length || only.includes(name);
  out.push(...await derivedSets(wanted));
  return out.filter((s) => wanted(s.name));
}

/**
 * A derived set's how-to questions, made as the shared sets' are (extract_howto.py), less
 * those on pages the crawl leaves out; undefined where the site has no gerund headings.
 */
async function howtoOf(dir: string, name: string, root: string, skip?: RegExp) {
  const path = `${dir}/${name}_howto.json`;
  const made = await new Deno.Command("python3", {
    args: [`${EVAL_DIR}/extract_howto.py`, root, name, "-o", path],
    cwd: EVAL_DIR,
    stdout: "null",
    stderr: "null",
  }).output();
  if (!made.success) return undefined;
  const set = JSON.parse(await Deno.readTextFile(path));
  set.judgments = set.judgments.filter((j: { page: string }) => !skip?.test(j.page));
  if (!set.judgments.length) return undefined;
  await Deno.writeTextFile(path, JSON.stringify(set));
  return path;
}

/** Temporary folders of derived judgments, removed by `disposeSets`. */
const made: string[] = [];

/** Removes the derived judgments' files. */
export async function disposeSets() {
  for (const dir of made.splice(0)) await Deno.remove(dir, { recursive: true });
}

/** A derived set written to temporary files in the shared formats. */
async function written(
  name: string,
  root: string,
  start: string,
  d: Derived,
  skip?: RegExp,
): Promise<EvalSet> {
  const dir = await Deno.makeTempDir();
  made.push(dir);
  const write = async (file: string, judgments: unknown[]) => {
    await Deno.writeTextFile(`${dir}/${file}`, JSON.stringify({ judgments }));
    return `${dir}/${file}`;
  };
  const howto = await howtoOf(dir, name, root, skip);
  return {
    name,
    root,
    start,
    skip,
    ...(howto ? { howto } : {}),
    plain: await write(`${name}_judgments.json`, d.plain),
    typo: await write(`${name}_judgments_typo.json`, typos(d.plain)),
    ...(d.faq.length ? { faq: await write(`${name}_faq.json`, d.faq) } : {}),
  };
}

/** The sets derived from sites' own structure (eval_derived.ts), each if installed. */
async function derivedSets(wanted: (name: string) => boolean): Promise<EvalSet[]> {
  const out: EvalSet[] = [];
  const git = "/usr/share/doc/git-doc";
  if (wanted("git") && await exists(`${git}/gitfaq.html`)) {
    out.push(await written("git", git, "/index.html", await gitDoc(git)));
  }
  // GNU gettext's Texinfo manual: its index nodes are left out of the crawl.
  const gettext = "/usr/share/doc/gettext";
  if (wanted("gettext") && await exists(`${gettext}/gettext_toc.html`)) {
    const index = await texinfoIndexPages(gettext, "gettext_");
    const skip = new RegExp(`^/(?:${index.map((n) => n.replace(/\./g, "\\.")).join("|")})$`);
    out.push(
      await written(
        "gettext",
        gettext,
        "/gettext_toc.html",
        await texinfoManual(gettext, { prefix: "gettext_", general: /General Index/ }),
        skip,
      ),
    );
  }
  // GNU diffutils' manual (makeinfo, one page a node): its Index node is left out.
  const diffutils = "/usr/share/doc/diffutils";
  if (wanted("diffutils") && await exists(`${diffutils}/Index.html`)) {
    out.push(
      await written(
        "diffutils",
        diffutils,
        "/index.html",
        await texinfoManual(diffutils, { prefix: "", general: /^Index\b/ }),
        /^\/Index\.html$/,
      ),
    );
  }
  // Jinja's Sphinx docs, a reference with its changelog beside it: judged by its own
  // genindex, which is left out of the crawl with the other index pages (SKIP).
  const jinja = "/usr/share/doc/python-jinja2-doc/html";
  if (wanted("jinja") && await exists(`${jinja}/genindex.html`)) {
    out.push(await written("jinja", jinja, "/index.html", await sphinxIndex(jinja), SKIP));
  }
  // Exim's specification (DocBook-made, 80 long chapters of options): judged by its three
  // back-of-book indexes (concepts, options, variables), which are left out of the crawl.
  const exim = "/usr/share/doc/exim4-doc-html/spec_html";
  if (wanted("exim") && await exists(`${exim}/ch-concept_index.html`)) {
    const index = ["ch-concept_index.html", "ch-option_index.html", "ch-variable_index.html"];
    const skip = new RegExp(`^/(?:${index.map((n) => n.replace(/\./g, "\\.")).join("|")})$`);
    out.push(
      await written("exim", exim, "/index.html", await nestedDlIndex(exim, index), skip),
    );
  }
  // The Linux man-pages project's system calls and overviews (sections 2 and 7), made into
  // a site with mandoc: judged by each page's NAME line.
  const man = await manSources(["manpages", "manpages-dev"], /\/man[27]\/[^/]+$/);
  if (wanted("manpages") && man.length) {
    const site = await Deno.makeTempDir();
    made.push(site);
    out.push(await written("manpages", site, "/index.html", await manPages(man, site)));
  }
  // The Debian FAQ: its table of contents (index.html) lists every question and is left
  // out; the crawl starts at the first chapter and follows the chapters' "Next" links.
  const faq = "/usr/share/doc/debian/FAQ";
  if (wanted("debfaq") && await exists(`${faq}/basic-defs.en.html`)) {
    const d = await docbookFaq(faq, /^(?!index)[a-z-]+\.en\.html$/);
    out.push(
      await written("debfaq", faq, "/basic-defs.en.html", d, /^\/index(?:\.en)?\.html$/),
    );
  }
  // ikiwiki's own site (a wiki with a blog of tips): its generated lists are left out; the
  // map plugin's page shows a map as its example and is a page like any other.
  const wiki = "/usr/share/doc/ikiwiki/html";
  if (wanted("ikiwiki") && await exists(`${wiki}/tips.html`)) {
    const lists = await wikiListPages(wiki, /^\/plugins\/map\.html$/);
    const skip = new RegExp(`^(?:${lists.map((p) => p.replace(/\./g, "\\.")).join("|")})$`);
    const closed = new RegExp(`${skip.source}|${SKIP.source}`);
    const d = await wikiLists(wiki, "/index.html", lists, closed);
    out.push(await written("ikiwiki", wiki, "/index.html", d, skip));
  }
  return out;
}

/** The manual pages Debian's `packages` install that `pick` keeps (none without mandoc). */
async function manSources(packages: string[], pick: RegExp): Promise<string[]> {
  const run = (cmd: string, args: string[]) =>
    new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output()
      .then((o) => o.success ? new TextDecoder().decode(o.stdout) : "", () => "");
  if (!(await run("sh", ["-c", "command -v mandoc"]))) return [];
  return (await run("dpkg", ["-L", ...packages])).split("\n").filter((f) => pick.test(f)).sort();
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  js: "text/javascript",
  png: "image/png",
  txt: "text/plain",
};

/** A static file server for a site on 127.0.0.1, its index pages left out. */
function serve(root: string, skip?: RegExp) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    let path = decodeURIComponent(new URL(req.url).pathname);
    if (path.endsWith("/")) path += "index.html";
    if (SKIP.test(path) || skip?.test(path) || path.split("/").includes("..")) {
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
  const docs = serve(set.root, set.skip);
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
