/**
 * Real documentation sites for the real-site tier and bench/crawl.ts: Debian's doc
 * packages served as they are on 127.0.0.1, a plain link-follower that says which pages
 * a visitor clicking every link reaches, and two other shapes built from a package's
 * pages: a sitemap index of gzip sitemaps, and a directory-URL site (`/topics/`, each an
 * index.html in its folder, as MkDocs and Hugo publish).
 */
import { gzip } from "../fixtures/crawl_site.ts";

/** The doc packages the tier crawls: where their HTML lives, and the home page. */
export const DOC_SITES = [
  { pkg: "python-django-doc", root: "/usr/share/doc/python-django-doc/html" },
  { pkg: "python-scrapy-doc", root: "/usr/share/doc/python-scrapy-doc/html" },
  { pkg: "python-celery-doc", root: "/usr/share/doc/python-celery-doc/html" },
  { pkg: "git-doc", root: "/usr/share/doc/git-doc" },
  { pkg: "python-jinja2-doc", root: "/usr/share/doc/python-jinja2-doc/html" },
] as const;

/** The packages of DOC_SITES that are not installed here. */
export async function missingPackages(): Promise<string[]> {
  const missing: string[] = [];
  for (const d of DOC_SITES) {
    const ok = await Deno.stat(`${d.root}/index.html`).then(() => true, () => false);
    if (!ok) missing.push(d.pkg);
  }
  return missing;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  svg: "image/svg+xml",
  png: "image/png",
  js: "text/javascript",
  txt: "text/plain; charset=utf-8",
  xml: "application/xml",
  gz: "application/gzip",
};

/** A response served from memory instead of the directory (generated sitemaps, changed pages). */
export interface Override {
  body: string | Uint8Array;
  type: string;
  /** Last-Modified, as a date. */
  modified?: Date;
}

/**
 * Serves a directory (a folder's URL answers its index.html) with ETag and
 * Last-Modified, answering 304 to matching validators; `overrides` win over files.
 */
export function serveDir(root: string, overrides = new Map<string, Override>()) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    requests++;
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url).pathname);
    } catch {
      return new Response("bad path", { status: 400 });
    }
    if (path.split("/").includes("..")) return new Response("bad path", { status: 400 });
    const over = overrides.get(path);
    if (path.endsWith("/")) path += "index.html";
    try {
      let body: Uint8Array | null = null;
      let size: number, mtime: Date;
      if (over) {
        body = typeof over.body === "string" ? new TextEncoder().encode(over.body) : over.body;
        [size, mtime] = [body.length, over.modified ?? new Date(0)];
      } else {
        const info = await Deno.stat(`${root}${path}`);
        if (!info.isFile) throw new Error("not a file");
        [size, mtime] = [info.size, info.mtime ?? new Date(0)];
      }
      const etag = `"${size.toString(36)}-${mtime.getTime().toString(36)}"`;
      const headers = {
        "Content-Type": over?.type ?? TYPES[path.split(".").pop() ?? ""] ??
          "application/octet-stream",
        "ETag": etag,
        "Last-Modified": mtime.toUTCString(),
      };
      if (req.headers.get("if-none-match") === etag) {
        return new Response(null, { status: 304, headers });
      }
      return new Response((body ?? await Deno.readFile(`${root}${path}`)) as BodyInit, { headers });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return {
    server,
    origin: `http://127.0.0.1:${server.addr.port}`,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

const HREF = /<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;

/**
 * What a visitor clicking every same-site link from `start` reaches: the URLs (without
 * fragment) that answer 200 with HTML. The yardstick the crawler is measured against.
 */
export async function linkFollower(start: string): Promise<Set<string>> {
  const origin = new URL(start).origin;
  const seen = new Set<string>([start]);
  const pages = new Set<string>();
  let frontier = [start];
  while (frontier.length) {
    const next: string[] = [];
    await Promise.all(frontier.map(async (url) => {
      const res = await fetch(url);
      if (res.status !== 200 || !res.headers.get("content-type")?.startsWith("text/html")) {
        await res.body?.cancel();
        return;
      }
      pages.add(url);
      for (const m of (await res.text()).matchAll(HREF)) {
        const href = (m[1] ?? m[2]).replaceAll("&amp;", "&");
        const u = URL.parse(href, url);
        if (!u || u.origin !== origin) continue;
        u.hash = "";
        if (!seen.has(u.href)) {
          seen.add(u.href);
          next.push(u.href);
        }
      }
    }));
    frontier = next;
  }
  return pages;
}

/** Every .html file under `root`, as site paths, sorted. */
export async function htmlPaths(root: string, dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${root}${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await htmlPaths(root, path));
    else if (e.name.endsWith(".html")) out.push(path);
  }
  return out.sort();
}

const xmlEscape = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/**
 * A sitemap index at /sitemap_index.xml of gzip sitemaps (`perSitemap` URLs each) listing
 * `paths` with their files' modification dates as lastmod, or the date `lastmods` gives.
 */
export async function sitemapOverrides(
  root: string,
  origin: string,
  paths: string[],
  lastmods = new Map<string, string>(),
  perSitemap = 100,
): Promise<Map<string, Override>> {
  const routes = new Map<string, Override>();
  const maps: string[] = [];
  for (let i = 0; i < paths.length; i += perSitemap) {
    const urls = await Promise.all(
      paths.slice(i, i + perSitemap).map(async (p) => {
        const mtime = (await Deno.stat(root + p)).mtime ?? new Date(0);
        const lastmod = lastmods.get(p) ?? mtime.toISOString().slice(0, 10);
        return `<url><loc>${xmlEscape(origin + p)}</loc><lastmod>${lastmod}</lastmod></url>`;
      }),
    );
    const name = `/sitemaps/pages-${maps.length + 1}.xml.gz`;
    routes.set(name, {
      type: "application/gzip",
      body: await gzip(
        `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
          urls.join("")
        }</urlset>`,
      ),
    });
    maps.push(name);
  }
  routes.set("/sitemap_index.xml", {
    type: "application/xml",
    body:
      `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
        maps.map((m) => `<sitemap><loc>${origin}${m}</loc></sitemap>`).join("")
      }</sitemapindex>`,
  });
  return routes;
}

/** A page's directory URL: /a/b.html → /a/b/, /a/index.html → /a/. */
const dirUrl = (path: string) =>
  path.endsWith("/index.html") ? path.slice(0, -"index.html".length) : path.slice(0, -5) + "/";

/**
 * Builds a directory-URL site in a new temporary folder from the HTML of `root`: every
 * page moves to its folder's index.html, and every link to a page is rewritten to the
 * page's folder URL (fragments kept); links to other files point at them where they were.
 * Answers the folder, which the caller removes.
 */
export async function buildDirectorySite(root: string): Promise<string> {
  const out = await Deno.makeTempDir({ prefix: "dirsite-" });
  // Each page's new URL; where two would share a folder (a.html, a/index.html) the index keeps it.
  const urls = new Map<string, string>();
  const taken = new Set<string>();
  const isIndex = (p: string) => p.endsWith("/index.html") ? 0 : 1;
  for (const path of (await htmlPaths(root)).sort((a, b) => isIndex(a) - isIndex(b))) {
    const url = taken.has(dirUrl(path)) ? path : dirUrl(path);
    taken.add(url);
    urls.set(path, url);
  }
  for (const [path, url] of urls) {
    const base = new URL(path, "http://site.invalid");
    const html = (await Deno.readTextFile(root + path)).replace(
      /(\s(?:href|src)\s*=\s*")([^"]*)"/gi,
      (all, attr: string, href: string) => {
        if (/^[a-z][a-z0-9+.-]*:|^#|^\/\//i.test(href)) return all;
        const u = URL.parse(href.replaceAll("&amp;", "&"), base);
        if (!u) return all;
        const target = decodeURIComponent(u.pathname);
        const to = urls.get(target) ?? `/_files${target}`;
        return `${attr}${encodeURI(to)}${u.search}${u.hash}"`;
      },
    );
    const dest = `${out}${url}${url.endsWith("/") ? "index.html" : ""}`;
    await Deno.mkdir(dest.slice(0, dest.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(dest, html);
  }
  // Stylesheets, scripts and images stay reachable under /_files (not pages: never crawled).
  await Deno.symlink(root, `${out}/_files`);
  return out;
}
