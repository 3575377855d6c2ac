/** The service's own pages: the landing page, the API reference, their CSS and island bundle. */
import { Hono } from "hono";
import { Landing } from "../components/Landing.tsx";
import { Readme } from "../components/Readme.tsx";
import { pageResponse, renderPage } from "../components/render.tsx";
import { ApiError } from "../lib/http/errors.ts";
import { allowOnly, type AppEnv } from "../lib/http/middleware.ts";
import type { Services } from "../lib/services.ts";
import { dashboardRoutes } from "./dashboard.tsx";
import { resultsPageRoutes } from "./results_page.tsx";
import { loader, matchesEtag } from "./scripts.ts";

const ASSETS: Record<string, string> = {
  "app.css": "text/css; charset=utf-8",
  "islands.js": "text/javascript; charset=utf-8",
};
const README = new URL("../README.md", import.meta.url);

export function pageRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get(
    "/",
    () => pageResponse(renderPage({ title: "SiteSearch", path: "/", body: <Landing /> })),
  );

  app.get("/docs/api", async () => {
    const markdown = await Deno.readTextFile(README);
    return pageResponse(
      renderPage({
        title: "API reference · SiteSearch",
        path: "/docs/api",
        body: <Readme markdown={markdown} />,
      }),
    );
  });

  for (const [name, type] of Object.entries(ASSETS)) {
    const load = loader(name);
    app.get("/assets/" + name, async (c) => {
      const file = await load();
      if (!file) throw new ApiError("NOT_FOUND", `${name} is not built yet: run deno task build.`);
      const headers = {
        "Cache-Control": "public, max-age=300",
        ETag: file.etag,
        "X-Content-Type-Options": "nosniff",
      };
      if (matchesEtag(c.req.header("if-none-match"), [file.etag])) {
        return new Response(null, { status: 304, headers });
      }
      return new Response(file.body, { headers: { ...headers, "Content-Type": type } });
    });
  }
  app.route("/", resultsPageRoutes(s));
  app.route("/", dashboardRoutes(s));
  allowOnly(app, "/", ["GET"]);
  return app;
}
