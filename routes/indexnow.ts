/**
 * IndexNow (indexnow.org): a CMS or deploy hook names pages that changed, by POST (a JSON body
 * of up to 10,000 URLs) or GET (one URL); no key of ours, the host's key file vouches instead.
 */
import { Hono } from "hono";
import { allowOnly, type AppEnv, readJson } from "../lib/http/middleware.ts";
import { IndexNowBody, IndexNowQuery, parse } from "../lib/http/schemas.ts";
import { indexNowPing } from "../lib/indexnow/ping.ts";
import { pingFromBody, pingFromQuery } from "../lib/indexnow/protocol.ts";
import type { Services } from "../lib/services.ts";

/** 10,000 URLs of up to a few hundred bytes each, with room to spare. */
const BODY_LIMIT = 2 * 1024 * 1024;

export function indexNowRoutes(s: Services) {
  const app = new Hono<AppEnv>();

  app.post("/indexnow", async (c) => {
    const body = parse(IndexNowBody, await readJson(c, BODY_LIMIT));
    return c.json(await indexNowPing(s, pingFromBody(body)), 202);
  });

  app.get("/indexnow", async (c) => {
    const query = parse(IndexNowQuery, c.req.queries());
    return c.json(await indexNowPing(s, pingFromQuery(query)), 202);
  });

  allowOnly(app, "/indexnow", ["GET", "POST"]);
  return app;
}
