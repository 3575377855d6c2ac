/**
 * One AI answer, from checks to the last delta: conversation turn, credit and
 * per-IP limit are taken in API.md's order (and given back if the answer never
 * starts), passages retrieved, the summarizer streamed and capped at 1,600
 * characters, the turn recorded. Routes choose JSON or server-sent events.
 */
import { ApiError } from "../http/errors.ts";
import { PLANS } from "../limits/plans.ts";
import { retrieve, type SourceRef } from "./retrieve.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import { MAX_ANSWER_CHARS, truncateAnswer, type Turn, UpstreamError } from "./summarizer.ts";
import { MAX_USER_TURNS } from "./conversations.ts";

export interface SummaryRequest {
  query: string;
  mode: "initial" | "followup";
  stream: boolean;
  conversationId?: string;
}

/** Everything decided before the model is asked; `meta` is the SSE meta payload. */
export interface Prepared {
  site: Site;
  req: SummaryRequest;
  conversationId: string;
  history: Turn[];
  texts: Awaited<ReturnType<typeof retrieve>>["texts"];
  creditMonth: string;
  creditsRemaining: number | null;
  meta: {
    conversationId: string;
    conversationEnabled: boolean;
    mode: SummaryRequest["mode"];
    turn: number;
    turnsRemaining: number;
    sources: SourceRef[];
  };
}

const EXTERNAL: SourceRef = { type: "external", label: "General AI knowledge" };

/** Runs the checks after body validation, takes turn, credit and IP allowance, retrieves. */
export async function prepare(
  s: Services,
  site: Site,
  req: SummaryRequest,
  ip: string,
): Promise<Prepared> {
  const followupsAllowed = PLANS[site.plan].followups && site.settings.followups;
  if (req.mode === "followup" && !PLANS[site.plan].followups) {
    throw new ApiError(
      "FOLLOWUP_REQUIRES_PAID_PLAN",
      "Follow-up questions need a paid plan.",
      { param: "mode" },
    );
  }
  if (req.mode === "followup" && !site.settings.followups) {
    throw new ApiError("FOLLOWUPS_DISABLED", "This site has turned follow-up questions off.", {
      param: "mode",
    });
  }
  const conv = req.mode === "followup"
    ? await s.conversations.reserveTurn(site.id, req.conversationId!)
    : null;
  const undoTurn = () => conv && s.conversations.releaseTurn(site.id, conv.id);
  let credit: { remaining: number | null; month: string };
  try {
    credit = await s.credits.reserve(site);
  } catch (err) {
    await undoTurn();
    throw err;
  }
  try {
    await s.ipLimit.hit(site.id, ip);
    const started = conv ?? await s.conversations.start(site.id);
    const history = conv?.turns ?? [];
    const { texts, refs } = await retrieve(s, site, req.query, {
      questions: history.filter((t) => t.role === "user").map((t) => t.content),
      sources: [],
    });
    const sources = site.settings.externalKnowledge && s.summarizer.name !== "extractive"
      ? [...refs, EXTERNAL]
      : refs;
    const turn = started.userTurns;
    return {
      site,
      req,
      conversationId: started.id,
      history,
      texts,
      creditMonth: credit.month,
      creditsRemaining: credit.remaining,
      meta: {
        conversationId: started.id,
        conversationEnabled: followupsAllowed && turn < MAX_USER_TURNS,
        mode: req.mode,
        turn,
        turnsRemaining: MAX_USER_TURNS - turn,
        sources,
      },
    };
  } catch (err) {
    await s.credits.refund(site.id, credit.month);
    await undoTurn();
    throw err;
  }
}

export interface Answer {
  answer: string;
  truncated: boolean;
}

/**
 * The answer's deltas, then (as the generator's return value) the final answer. Refunds
 * credit and turn if no text ever came; errors thrown before the first delta let a route
 * still answer with a plain JSON error.
 */
export async function* answerDeltas(
  s: Services,
  p: Prepared,
  signal: AbortSignal,
): AsyncGenerator<string, Answer> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  let text = "";
  let sent = 0;
  try {
    for await (
      const delta of s.summarizer.stream({
        question: p.req.query,
        history: p.history,
        sources: p.texts,
        externalKnowledge: p.site.settings.externalKnowledge,
        signal: both,
      })
    ) {
      text += delta;
      if (text.length > MAX_ANSWER_CHARS) {
        stop.abort(); // enough: the rest would never be shown
        break;
      }
      if (!delta) continue;
      sent += delta.length;
      yield delta;
    }
  } catch (err) {
    if (text.length === 0) {
      await s.credits.refund(p.site.id, p.creditMonth);
      if (p.req.mode === "followup") await s.conversations.releaseTurn(p.site.id, p.conversationId);
    }
    if (signal.aborted) throw err; // the client left; nobody to answer
    if (err instanceof ApiError) throw err;
    const before = !(err instanceof UpstreamError) || err.beforeFirstToken || text.length === 0;
    throw new ApiError(
      "UPSTREAM_ERROR",
      before
        ? "The AI answer could not be produced. Please try again."
        : "The AI answer stopped before it was complete.",
    );
  }
  const result = truncateAnswer(text);
  // Send what the cut answer has beyond what already went out.
  if (result.answer.length > sent && result.answer.startsWith(text.slice(0, sent))) {
    yield result.answer.slice(sent);
  }
  await s.conversations.record(p.site.id, p.conversationId, p.req.query, result.answer);
  return result;
}
