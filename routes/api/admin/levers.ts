/** Owners' levers: synonyms, curations, answer pins, suggested fixes, and a preview of unsaved lists. */
import { type Context, Hono } from "hono";
import { adminTarget } from "../../../lib/http/auth.ts";
import { allowOnly, type AppEnv, readJson } from "../../../lib/http/middleware.ts";
import { AnalyticsParams, parse } from "../../../lib/http/schemas.ts";
import {
  getAnswerPins,
  getCurations,
  getSynonyms,
  preview,
  putAnswerPins,
  putCurations,
  putSynonyms,
} from "../../../lib/levers/owner.ts";
import { dismissSuggestion, suggestions } from "../../../lib/levers/suggestions.ts";
import { runSelfCheck, selfCheckRuns } from "../../../lib/answers/selfcheck.ts";
import type { Services } from "../../../lib/services.ts";

/** 1,000 synonyms or 500 curations at their largest (4-byte characters throughout) fit in this. */
const BODY_LIMIT = 8 * 1024 * 1024;
const BASE = "/api/admin/sites/:id";

export function adminLeverRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  const site = async (c: Context<AppEnv>) =>
    (await adminTarget(c, s.sites, s.operatorTokenHash)).site;

  app.get(`${BASE}/synonyms`, async (c) => c.json(await getSynonyms(s, await site(c))));
  app.put(`${BASE}/synonyms`, async (c) => {
    const target = await site(c);
    return c.json(await putSynonyms(s, target, await readJson(c, BODY_LIMIT)));
  });
  app.get(`${BASE}/curations`, async (c) => c.json(await getCurations(s, await site(c))));
  app.put(`${BASE}/curations`, async (c) => {
    const target = await site(c);
    return c.json(await putCurations(s, target, await readJson(c, BODY_LIMIT)));
  });
  app.get(`${BASE}/answers`, async (c) => c.json(await getAnswerPins(s, await site(c))));
  app.put(`${BASE}/answers`, async (c) => {
    const target = await site(c);
    return c.json(await putAnswerPins(s, target, await readJson(c, BODY_LIMIT)));
  });
  app.get(`${BASE}/answers/selfcheck`, async (c) => {
    const target = await site(c);
    return c.json({ runs: await selfCheckRuns(s, target) });
  });
  app.post(`${BASE}/answers/selfcheck`, async (c) => {
    const target = await site(c);
    await s.previewLimit.hit(target.id); // a run asks up to 60 questions
    return c.json(await runSelfCheck(s, target));
  });
  app.post(`${BASE}/levers/preview`, async (c) => {
    const target = await site(c);
    return c.json(await preview(s, target, await readJson(c, BODY_LIMIT)));
  });
  app.get(`${BASE}/suggestions`, async (c) => {
    const target = await site(c);
    const { days } = parse(AnalyticsParams, c.req.query());
    return c.json(await suggestions(s, target, days));
  });
  app.post(`${BASE}/suggestions/dismissed`, async (c) => {
    const target = await site(c);
    await dismissSuggestion(s, target, await readJson(c, 4096));
    return c.body(null, 204);
  });
  allowOnly(app, `${BASE}/synonyms`, ["GET", "PUT"]);
  allowOnly(app, `${BASE}/curations`, ["GET", "PUT"]);
  allowOnly(app, `${BASE}/answers`, ["GET", "PUT"]);
  allowOnly(app, `${BASE}/answers/selfcheck`, ["GET", "POST"]);
  allowOnly(app, `${BASE}/levers/preview`, ["POST"]);
  allowOnly(app, `${BASE}/suggestions`, ["GET"]);
  allowOnly(app, `${BASE}/suggestions/dismissed`, ["POST"]);
  return app;
}
