/** POST /api/summarize: an AI answer as JSON, or streamed (lib/usecases/answer_question.ts). */
import { Hono } from "hono";
import { publicKeyOf } from "../../lib/http/auth.ts";
import { asDomainError, errorObject } from "../../lib/http/errors.ts";
import { allowOnly, type AppEnv, clientIp, readJson } from "../../lib/http/middleware.ts";
import { parse, SummaryBody } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { answerQuestion } from "../../lib/usecases/answer_question.ts";

const BODY_LIMIT = 16 * 1024;

export function summarizeRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.post("/api/summarize", (c) =>
    answerQuestion(s, {
      key: publicKeyOf(c),
      origin: c.req.header("origin"),
      ip: clientIp(c, s.trustedProxies),
      // Read after the key, origin and site's switch are checked (docs/api.md's order).
      request: async () => parse(SummaryBody, await readJson(c, BODY_LIMIT)),
      signal: c.req.raw.signal,
      requestId: c.get("requestId"),
      errorEvent: (err) => errorObject(asDomainError(err), c.get("requestId")),
      onSite: (id) => c.set("siteId", id),
    }));
  allowOnly(app, "/api/summarize", ["POST"]);
  return app;
}
