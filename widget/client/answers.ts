/// <reference lib="dom" />
/** AI answers from the browser: a streamed POST /api/summarize, and the visitor's vote on one. */
import {
  type AnswerDone,
  type AnswerMeta,
  MAX_FEEDBACK_COMMENT_CHARS,
} from "../../lib/wire_types.ts";
import { ApiFailure, call, failureOf } from "./http.ts";
import type { Api } from "./search.ts";

/**
 * The SSE parser, fetched as a module (static/sse.js) the first time an answer streams: most
 * searches ask for none, and it would push results.js over its size budget.
 */
async function sseModule(origin: string): Promise<typeof import("./sse.ts")> {
  return await import(new URL("/sse.js", origin).href);
}

/** The question: `{query}` for a first one, plus `mode: "followup"` and `conversationId` after. */
export type Ask = { query: string; mode?: "initial" | "followup"; conversationId?: string };

/** POST /api/summarize with stream: true; calls back as `meta` and text arrive. */
export async function summarize(
  api: Api,
  body: Ask,
  signal: AbortSignal,
  onMeta: (m: AnswerMeta) => void,
  onText: (t: string) => void,
): Promise<AnswerMeta & AnswerDone> {
  const res = await call(new URL("/api/summarize", api.origin).href, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-API-Key": api.key,
      Accept: "text/event-stream",
    },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
    credentials: "omit",
  });
  if (!res.ok || !res.body) throw await failureOf(res);
  if (!/event-stream/.test(res.headers.get("content-type") ?? "")) {
    const whole = await res.json(); // a server that answered without streaming
    onMeta(whole);
    return whole;
  }
  let meta: AnswerMeta | null = null;
  let deltas = false;
  const { sseEvents } = await sseModule(api.origin);
  for await (const { event, data } of sseEvents(res.body)) {
    const payload = JSON.parse(data);
    if (event === "meta") onMeta(meta = payload);
    else if (event === "delta" || (event === "text" && !deltas)) {
      deltas ||= event === "delta"; // `text` repeats each delta for older clients
      if (typeof payload?.text === "string") onText(payload.text);
    } else if (event === "done") {
      if (!meta) break;
      return { ...meta, ...payload };
    } else if (event === "error") {
      throw new ApiFailure(payload?.status ?? 500, payload?.code ?? "STREAM_ERROR");
    }
  }
  throw new ApiFailure(500, "STREAM_INCOMPLETE");
}

/**
 * POST /api/feedback: the visitor's vote on an answer's turn, with what they wrote (trimmed,
 * cut to the bound in whole characters, left out when empty); false when it was not taken.
 */
export async function sendFeedback(
  api: Api,
  vote: { conversationId: string; turn: number; helpful: boolean; comment?: string },
): Promise<boolean> {
  const comment = [...(vote.comment ?? "").trim()].slice(0, MAX_FEEDBACK_COMMENT_CHARS).join("");
  try {
    const res = await call(new URL("/api/feedback", api.origin).href, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": api.key },
      body: JSON.stringify({ ...vote, comment: comment || undefined }),
      credentials: "omit",
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
