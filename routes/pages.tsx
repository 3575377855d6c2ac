/** The service's own pages: the landing page, its CSS and island bundles, and the page routes. */
import { Hono } from "hono";
import { Landing } from "../components/Landing.tsx";
import { pageResponse, renderPage } from "../components/render.tsx";
import { DomainError } from "../lib/errors.ts";
import { allowOnly, type AppEnv } from "../lib/http/middleware.ts";
import type { Services } from "../lib/services.ts";
import { dashboardRoutes } from "./dashboard.tsx";
import { docsRoutes } from "./docs.tsx";
import { resultsPageRoutes } from "./results_page.tsx";
import { loader, matchesEtag } from "./scripts.ts";

/** Files under /assets/: the stylesheet, and the islands' modules (scripts/build.ts). */
const ASSET = /^(app\.css|islands\/[\w-]+\.js)$/;
const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
};

/** `demo`: the demo site is served (not in production mode), so pages may link it. */
export function pageRoutes(s: Services, demo: boolean) {
  const app = new Hono<AppEnv>();
  app.get(
    "/",
    () =>
      pageResponse(
        renderPage({ title: "SiteSearch", path: "/", body: <Landing demo={demo} />, demo }),
      ),
  );

  const loaders = new Map<string, ReturnType<typeof loader>>();
  app.get("/assets/*", async (c) => {
    const name = c.req.path.slice("/assets/".length);
    if (!ASSET.test(name)) throw new DomainError("NOT_FOUND", "No such asset.");
    const load = loaders.get(name) ?? loader(name);
    const file = await load();
    // Only files that exist keep a loader, so unknown names cannot grow the map.
    if (!file) throw new DomainError("NOT_FOUND", `${name} is not built yet: run deno task build.`);
    loaders.set(name, load);
    const headers = {
      "Cache-Control": "public, max-age=300",
      ETag: file.etag,
      "X-Content-Type-Options": "nosniff",
    };
    if (matchesEtag(c.req.header("if-none-match"), [file.etag])) {
      return new Response(null, { status: 304, headers });
    }
    const type = TYPES[name.slice(name.lastIndexOf(".") + 1)];
    return new Response(file.body, { headers: { ...headers, "Content-Type": type } });
  });
  app.route("/", docsRoutes(s, demo));
  app.route("/", resultsPageRoutes(s, demo));
  app.route("/", dashboardRoutes(s, demo));
  allowOnly(app, "/", ["GET"]);
  return app;
}
