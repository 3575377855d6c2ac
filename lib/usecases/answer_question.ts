/**
 * The answer use case (POST /api/summarize): key and origin, the site's switch, the request
 * (read only after those, docs/api.md's order of checks), then lib/answers/ask.ts's checks and
 * answer, delivered as JSON or server-sent events. Returns what to deliver, as data (the route
 * makes the response); the credit is spent only once the client has taken the answer, and
 * analytics count it then.
 */
import { busy, DomainError } from "../errors.ts";
import {
  type Answer,
  answerDeltas,
  delivered,
  prepare,
  type Prepared,
  type SummaryRequest,
  undeliver,
} from "../answers/ask.ts";
import type { SendEvent } from "../answers/sse.ts";
import type { Services } from "../services.ts";
import { publicSiteFor } from "./public_site.ts";

/** One question as a surface asks it. */
export interface QuestionAsk {
  /** A public key of the right shape (lib/http/auth.ts `publicKeyOf`). */
  key: string;
  origin?: string;
  /** The client's address, for the per-IP limit. */
  ip: string;
  /** Reads and validates the request; called once the key, origin and site allow a question. */
  request: () => Promise<SummaryRequest>;
  /** Aborts when the client goes away (the model request is aborted with it). */
  signal: AbortSignal;
  /** The `data` of the `error` event that ends a stream, for what ended it (the edge words it). */
  errorEvent: (err: unknown) => unknown;
  /** Told the site's id as soon as the key names one (the request log). */
  onSite?: (siteId: string) => void;
}

/**
 * An answer to deliver: the whole of it as one JSON body (`taken` once the client has read it,
 * `dropped` if it goes away first), or its events for a server-sent stream (`events` sends them,
 * pinging every `pingMs` meanwhile, until the answer ends or `signal` aborts).
 */
export type AnswerDelivery =
  | { kind: "json"; body: Record<string, unknown>; taken: () => void; dropped: () => Promise<void> }
  | {
    kind: "events";
    events: (send: SendEvent, signal: AbortSignal) => Promise<void>;
    pingMs: number;
  };

/** Answers a question; throws the DomainError of a check that fails before the answer starts. */
export async function answerQuestion(s: Services, ask: QuestionAsk): Promise<AnswerDelivery> {
  const site = await publicSiteFor(s, ask.key, ask.origin);
  ask.onSite?.(site.id);
  if (!site.settings.aiSummaries) {
    throw new DomainError("SUMMARIES_DISABLED", "AI summaries are turned off for this site.");
  }
  const req = await ask.request();
  const p = await prepare(s, site, req, ask.ip);
  // Aborted when the client goes away, before or during the stream.
  const gone = new AbortController();
  ask.signal.addEventListener("abort", () => gone.abort());
  const deltas = answerDeltas(s, p, gone.signal);
  const first = deltas.next();
  const spent = (a: Answer) => {
    delivered(p);
    s.analytics.answer(site.id, {
      answered: a.answered,
      pinned: a.pinned,
      removed: a.check.removed,
    });
  };
  if (!req.stream) return await jsonAnswer(s, p, deltas, first, gone.signal, spent);

  // A model that fails before its first token, within one ping interval, still gets a
  // plain JSON error; one that stays silent longer gets the stream, and pings, meanwhile.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<null>((r) => timer = setTimeout(() => r(null), s.ssePingMs));
  await Promise.race([first, silent]).finally(() => clearTimeout(timer));
  // The instance stopping ends the answer now, its credit given back, with a retry-able error.
  const stopping = s.shutdown.signal;
  const stream = async (send: SendEvent, signal: AbortSignal) => {
    signal.addEventListener("abort", () => gone.abort());
    const stop = () => gone.abort();
    stopping.addEventListener("abort", stop);
    if (stopping.aborted) gone.abort();
    send("meta", p.meta);
    try {
      for (let step = await first;; step = await deltas.next()) {
        if (step.done) {
          const done = { ...step.value, creditsRemaining: p.creditsRemaining };
          if (send("done", done)) spent(step.value);
          else await undeliver(s, p);
          break;
        }
        send("delta", { text: step.value });
        send("text", { text: step.value }); // legacy name, for older clients (spec section 6)
      }
    } catch (err) {
      const error = stopping.aborted && !signal.aborted
        ? busy("The service is restarting. Ask again in a moment.")
        : err;
      if (!signal.aborted) send("error", ask.errorEvent(error));
    } finally {
      stopping.removeEventListener("abort", stop);
    }
  };
  return {
    kind: "events",
    events: (send, signal) => s.shutdown.track(stream(send, signal)),
    pingMs: s.ssePingMs,
  };
}

/** The whole answer as one JSON body; its credit is spent when the client takes the body. */
async function jsonAnswer(
  s: Services,
  p: Prepared,
  deltas: ReturnType<typeof answerDeltas>,
  first: ReturnType<ReturnType<typeof answerDeltas>["next"]>,
  gone: AbortSignal,
  spent: (a: Answer) => void,
): Promise<AnswerDelivery> {
  let step = await first;
  while (!step.done) step = await deltas.next();
  const body = { ...p.meta, ...step.value, creditsRemaining: p.creditsRemaining };
  // A client gone before it takes the body pays nothing.
  if (gone.aborted) await undeliver(s, p);
  const answer = step.value;
  return { kind: "json", body, taken: () => spent(answer), dropped: () => undeliver(s, p) };
}
