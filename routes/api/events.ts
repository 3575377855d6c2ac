/** POST /api/events: click beacons from the browser scripts, counted in the site's analytics. */
import { Hono } from "hono";
import { publicKeyOf } from "../../lib/http/auth.ts";
import { publicSiteFor } from "../../lib/usecases/public_site.ts";
import {
  allowOnly,
  type AppEnv,
  clientIp,
  readJson,
  visitorOf,
} from "../../lib/http/middleware.ts";
import { ClickEvent, parse } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";

const BODY_LIMIT = 4 * 1024;

export function eventRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.post("/api/events", async (c) => {
    const site = await publicSiteFor(s, publicKeyOf(c), c.req.header("origin"));
    c.set("siteId", site.id);
    // text/plain too: sendBeacon sends a string that way, so a cross-origin beacon needs no preflight.
    const event = parse(ClickEvent, await readJson(c, BODY_LIMIT, true));
    const ip = clientIp(c, s.trustedProxies);
    await s.eventIpLimit.hit(site.id, ip);
    // Only a result the service served for this query counts: nobody plants suggestions.
    if (await s.clickTokens.verify(site.id, event.query, event.url, event.click)) {
      s.analytics.click(site.id, event.position, event.query, event.url, visitorOf(ip));
    }
    return c.body(null, 204);
  });
  allowOnly(app, "/api/events", ["POST"]);
  return app;
}
