/** POST /api/summarize: an AI answer as JSON, or streamed as server-sent events. */
import { Hono } from "hono";
import { getConnInfo } from "hono/deno";
import { publicSite } from "../../lib/http/auth.ts";
import { answerDeltas, delivered, prepare, undeliver } from "../../lib/answers/ask.ts";
import { ApiError, asApiError, errorObject } from "../../lib/http/errors.ts";
import { allowOnly, type AppEnv, readJson } from "../../lib/http/middleware.ts";
import { parse, SummaryBody } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { SSE_HEADERS, sseStream } from "../../lib/answers/sse.ts";

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

    // Aborted when the client goes away, before or during the stream.
    const gone = new AbortController();
    c.req.raw.signal.addEventListener("abort", () => gone.abort());
    const deltas = answerDeltas(s, p, gone.signal);
    const first = deltas.next();

    if (!req.stream) {
      let step = await first;
      while (!step.done) step = await deltas.next();
      const json = JSON.stringify({
        ...p.meta,
        ...step.value,
        creditsRemaining: p.creditsRemaining,
      });
      // The credit is spent when the body is taken; a client gone before that pays nothing.
      const body = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          ctrl.enqueue(new TextEncoder().encode(json));
          ctrl.close();
          delivered(p);
          s.analytics.answer(site.id);
        },
        cancel: () => undeliver(s, p),
      });
      if (gone.signal.aborted) await undeliver(s, p);
      return new Response(body, { headers: { "Content-Type": "application/json" } });
    }
    // A model that fails before its first token, within one ping interval, still gets a
    // plain JSON error; one that stays silent longer gets the stream, and pings, meanwhile.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<null>((r) => timer = setTimeout(() => r(null), s.ssePingMs));
    await Promise.race([first, silent]).finally(() => clearTimeout(timer));
    const requestId = c.get("requestId");
    const body = sseStream(async (send, signal) => {
      signal.addEventListener("abort", () => gone.abort());
      send("meta", p.meta);
      try {
        for (let step = await first;; step = await deltas.next()) {
          if (step.done) {
            const done = { ...step.value, creditsRemaining: p.creditsRemaining };
            if (send("done", done)) {
              delivered(p);
              s.analytics.answer(site.id);
            } else await undeliver(s, p);
            break;
          }
          send("delta", { text: step.value });
          send("text", { text: step.value }); // legacy name, for older clients (spec section 6)
        }
      } catch (err) {
        if (!signal.aborted) send("error", errorObject(asApiError(err), requestId));
      }
    }, { pingMs: s.ssePingMs });
    return new Response(body, { headers: { ...SSE_HEADERS, "X-Request-Id": requestId } });
  });
  allowOnly(app, "/api/summarize", ["POST"]);
  return app;
}
