/** GET /docs/api: the API reference, its examples made for the signed-in site when there is one. */
import { Hono } from "hono";
import { ApiReference } from "../components/ApiReference.tsx";
import { pageResponse, renderPage } from "../components/render.tsx";
import { allowOnly, type AppEnv } from "../lib/http/middleware.ts";
import type { Services } from "../lib/services.ts";
import { dashboardSession } from "./dashboard.tsx";

const PATH = "/docs/api";

export function docsRoutes(s: Services, demo: boolean) {
  const app = new Hono<AppEnv>();
  app.get(PATH, async (c) => {
    // A site owner's session shows their public key; the operator's stands for no one site.
    const site = (await dashboardSession(s, c))?.caller.site ?? null;
    const body = (
      <ApiReference
        origin={new URL(c.req.url).origin}
        site={site && { id: site.id, name: site.name, publicKey: site.publicKey }}
      />
    );
    return pageResponse(
      renderPage({ title: "API reference · SiteSearch", path: PATH, body, demo }),
    );
  });
  allowOnly(app, PATH, ["GET"]);
  return app;
}
