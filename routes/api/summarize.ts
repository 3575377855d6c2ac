/** POST /api/summarize: an AI answer as JSON, or streamed as server-sent events. */
import { Hono } from "hono";
import { getConnInfo } from "hono/deno";
import { publicSite } from "../../lib/auth.ts";
import { generate, prepare } from "../../lib/answer.ts";
import { ApiError, asApiError, errorObject } from "../../lib/errors.ts";
import { allowOnly, type AppEnv, readJson } from "../../lib/http.ts";
import { parse, SummaryBody } from "../../lib/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { SSE_HEADERS, sseStream } from "../../lib/sse.ts";

const BODY_LIMIT = 16 * 1024;

export function summarizeRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.post("/api/summarize", async (c) => {
    const { site } = await publicSite(c, s.sites);
    c.set("siteId", site.id);
    if (!site.settings.aiSummaries) {
      throw new ApiError("SUMMARIES_DISABLED", "AI summaries are turned off for this site.");
    }
    const req = parse(SummaryBody, await readJson(c, BODY_LIMIT));
    let ip = "unknown";
    try {
      ip = getConnInfo(c).remote.address ?? ip;
    } catch { /* no socket (in-process requests) */ }
    const p = await prepare(s, site, req, ip);

    if (!req.stream) {
      const { answer, truncated } = await generate(s, p, c.req.raw.signal, () => {});
      return c.json({
        answer,
        truncated,
        ...p.meta,
        creditsRemaining: p.creditsRemaining,
      });
    }
    const requestId = c.get("requestId");
    const body = sseStream(async (send, signal) => {
      send("meta", p.meta);
      try {
        const done = await generate(s, p, signal, (text) => {
          send("delta", { text });
          send("text", { text }); // legacy name, for older clients (spec section 6)
        });
        send("done", { ...done, creditsRemaining: p.creditsRemaining });
      } catch (err) {
        if (!signal.aborted) send("error", errorObject(asApiError(err), requestId));
      }
    }, { pingMs: s.ssePingMs });
    return new Response(body, { headers: { ...SSE_HEADERS, "X-Request-Id": requestId } });
  });
  allowOnly(app, "/api/summarize", ["POST"]);
  return app;
}
