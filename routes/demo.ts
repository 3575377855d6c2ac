/**
 * The demo site under /demo/: the made-up Lumen Coffee Roasters pages, embedding widget.js and
 * results.js exactly as a site owner would, with the demo site's public key. The pages send a
 * strict Content-Security-Policy, so the demo also proves the scripts need nothing inline.
 */
import { Hono } from "hono";
import { type ComponentChildren, h } from "preact";
import { renderToString } from "preact-render-to-string";
import { ensureDemoSite } from "../lib/demo/site.ts";
import { DEMO_PAGES, DEMO_SITE_NAME, type DemoPage } from "../lib/demo/pages.ts";
import type { AppEnv } from "../lib/http/middleware.ts";
import { PAGE_CSP } from "../components/render.tsx";
import type { Services } from "../lib/services.ts";

const BASE = "/demo";
const RESULTS_PATH = `${BASE}/search-results`;

const NAV: [string, string][] = [
  ["/shop", "Shop"],
  ["/pricing", "Subscriptions"],
  ["/cafes", "Cafés"],
  ["/blog/pour-over-guide", "Brew guides"],
  ["/faq", "FAQ"],
  ["/about", "About"],
];

/** The two tags of the README, as the demo site pastes them. */
function scriptTags(key: string, results: boolean): ComponentChildren[] {
  const tags: ComponentChildren[] = [
    h("script", {
      async: true,
      src: "/widget.js",
      "data-key": key,
      "data-results-page": RESULTS_PATH,
      "data-live": "true",
      "data-base-url": BASE,
    }),
  ];
  if (results) {
    tags.push(h("script", {
      defer: true,
      src: "/results.js",
      "data-key": key,
      "data-summary": "true",
      "data-base-url": BASE,
    }));
  }
  return tags;
}

/** Plain-text page bodies: blank lines part blocks; short unpunctuated blocks are headings. */
function bodyBlocks(body: string): ComponentChildren[] {
  return body.split(/\n{2,}/).map((block) => {
    const lines = block.split("\n");
    if (lines.every((l) => l.startsWith("- "))) {
      return h("ul", {}, lines.map((l) => h("li", {}, l.slice(2))));
    }
    if (block.length < 80 && !/[.!?:;,)"”]$/.test(block)) return h("h2", {}, block);
    return h("p", {}, block);
  });
}

/** Product pages draw no search bar, so widget.js shows its floating button and dialog there. */
const hasBar = (path: string) => !path.startsWith("/shop/");

function layout(
  o: { title: string; path: string; key: string; main: ComponentChildren[] },
): string {
  const link = (path: string, label: string) =>
    h("a", { href: BASE + path, "aria-current": o.path === path ? "page" : undefined }, label);
  const doc = h(
    "html",
    { lang: "en" },
    h(
      "head",
      {},
      h("meta", { charset: "utf-8" }),
      h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
      h(
        "title",
        {},
        `${o.path === "/" ? "" : o.title + " · "}${DEMO_SITE_NAME} (SiteSearch demo)`,
      ),
      h("link", { rel: "stylesheet", href: `${BASE}/demo.css` }),
      ...scriptTags(o.key, o.path === "/search-results"),
    ),
    h(
      "body",
      {},
      h(
        "p",
        { class: "banner" },
        "SiteSearch demo: a made-up coffee roaster. Type in the search bar (or press / or Ctrl+K), ",
        "then press Enter for the results page with its AI answer. ",
        h(
          "a",
          { href: `${RESULTS_PATH}?q=how+long+does+shipping+to+germany+take` },
          "Try a question",
        ),
        ".",
      ),
      h(
        "header",
        { class: "site" },
        h("a", { class: "logo", href: `${BASE}/` }, "☕ ", DEMO_SITE_NAME),
        h("nav", { "aria-label": "Main" }, NAV.map(([p, l]) => link(p, l))),
        hasBar(o.path) ? h("div", { class: "search", "data-site-search": "" }) : null,
      ),
      h("main", { id: "main" }, o.main),
      h(
        "footer",
        { class: "site" },
        h("p", {}, "All pages of the demo site:"),
        h("ul", {}, DEMO_PAGES.map((p) => h("li", {}, link(p.url, shortTitle(p))))),
      ),
    ),
  );
  return "<!doctype html>" + renderToString(doc);
}

const shortTitle = (p: DemoPage) => p.title.replace(/\s*\|.*$/, "");

const CSS = `:root{--bg:#fbf8f4;--fg:#2b211b;--muted:#6f6259;--line:#e6ddd3;--brand:#8a4b24;
--sitesearch-accent:#8a4b24;--sitesearch-radius:10px;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#1c1714;--fg:#f1e9e1;--muted:#b7a99c;--line:#3a302a;
--brand:#e3a572;--sitesearch-accent:#e3a572}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:17px/1.6 Georgia,"Iowan Old Style",serif}
a{color:var(--brand)}
.banner{margin:0;padding:.55rem 1rem;background:var(--brand);color:var(--bg);font:14px/1.4 system-ui,sans-serif;text-align:center}
.banner a{color:inherit;font-weight:600}
header.site{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.5rem;max-width:70rem;margin:0 auto;padding:1rem 1.25rem;border-bottom:1px solid var(--line)}
.logo{font-weight:700;font-size:1.15rem;text-decoration:none;color:var(--fg);white-space:nowrap}
header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font:15px system-ui,sans-serif}
header nav a{color:var(--muted);text-decoration:none}
header nav a[aria-current],header nav a:hover{color:var(--fg)}
.search{flex:1 1 16rem;max-width:26rem;margin-left:auto}
main{max-width:46rem;margin:0 auto;padding:2rem 1.25rem 3rem}
h1{font-size:2rem;line-height:1.2;margin:0 0 .5rem}
h2{font-size:1.3rem;margin:2rem 0 .5rem}
.lede{color:var(--muted);font-size:1.1rem;margin-top:0}
footer.site{max-width:70rem;margin:0 auto;padding:1.5rem 1.25rem 3rem;border-top:1px solid var(--line);font:14px/1.5 system-ui,sans-serif;color:var(--muted)}
footer.site ul{columns:14rem;padding:0;list-style:none;margin:.5rem 0 0}
footer.site li{break-inside:avoid;margin:.15rem 0}
`;

export function demoRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  // Concurrent first requests share one creation of the demo site.
  let pending: ReturnType<typeof ensureDemoSite> | null = null;
  const demo = () => (pending ??= ensureDemoSite(s).finally(() => (pending = null)));
  const html = (body: string, status = 200) =>
    new Response(body, {
      status,
      headers: {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": PAGE_CSP,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
      },
    });

  app.get(BASE, (c) => c.redirect(`${BASE}/`, 301));
  app.get(`${BASE}/demo.css`, () =>
    new Response(CSS, {
      headers: {
        "Content-Type": "text/css; charset=utf-8",
        "Cache-Control": "public, max-age=300",
      },
    }));
  app.get(RESULTS_PATH, async () => {
    const { publicKey } = await demo();
    return html(layout({
      title: "Search results",
      path: "/search-results",
      key: publicKey,
      main: [
        h("h1", {}, "Search results"),
        h("div", { "data-site-search-results": "" }),
      ],
    }));
  });
  app.get(`${BASE}/*`, async (c) => {
    const path = c.req.path.slice(BASE.length).replace(/(.)\/+$/, "$1");
    const page = DEMO_PAGES.find((p) => p.url === path);
    const { publicKey } = await demo();
    if (!page) {
      return html(
        layout({
          title: "Page not found",
          path,
          key: publicKey,
          main: [h("h1", {}, "Page not found"), h("p", {}, "Try the search bar above.")],
        }),
        404,
      );
    }
    return html(layout({
      title: shortTitle(page),
      path,
      key: publicKey,
      main: [
        h("h1", {}, shortTitle(page)),
        h("p", { class: "lede" }, page.description),
        ...bodyBlocks(page.body),
      ],
    }));
  });
  return app;
}
