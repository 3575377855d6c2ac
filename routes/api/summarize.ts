/** POST /api/summarize: an AI answer as JSON, or streamed (lib/usecases/answer_question.ts). */
import { Hono } from "hono";
import { publicKeyOf } from "../../lib/http/auth.ts";
import { asDomainError, errorObject } from "../../lib/http/errors.ts";
import { allowOnly, type AppEnv, clientIp, readJson } from "../../lib/http/middleware.ts";
import { parse, SummaryBody } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { SSE_HEADERS, sseStream } from "../../lib/answers/sse.ts";
import { type AnswerDelivery, answerQuestion } from "../../lib/usecases/answer_question.ts";

const BODY_LIMIT = 16 * 1024;
const encoder = new TextEncoder();

/** An answer as the response that delivers it: one JSON body, or a server-sent event stream. */
function delivered(answer: AnswerDelivery, requestId: string): Response {
  if (answer.kind === "events") {
    const body = sseStream(answer.events, { pingMs: answer.pingMs });
    return new Response(body, { headers: { ...SSE_HEADERS, "X-Request-Id": requestId } });
  }
  // Spent once the client takes the body; a client gone before that pays nothing.
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      ctrl.enqueue(encoder.encode(JSON.stringify(answer.body)));
      ctrl.close();
      answer.taken();
    },
    cancel: () => answer.dropped(),
  });
  return new Response(body, { headers: { "Content-Type": "application/json" } });
}

export function summarizeRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.post("/api/summarize", async (c) => {
    const answer = await answerQuestion(s, {
      key: publicKeyOf(c),
      origin: c.req.header("origin"),
      ip: clientIp(c, s.trustedProxies),
      // Read after the key, origin and site's switch are checked (docs/api.md's order).
      request: async () => parse(SummaryBody, await readJson(c, BODY_LIMIT)),
      signal: c.req.raw.signal,
      errorEvent: (err) => errorObject(asDomainError(err), c.get("requestId")),
      onSite: (id) => c.set("siteId", id),
    });
    return delivered(answer, c.get("requestId"));
  });
  allowOnly(app, "/api/summarize", ["POST"]);
  return app;
}
