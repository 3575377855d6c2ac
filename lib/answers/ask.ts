/**
 * One AI answer, from checks to delivery: conversation turn, credit and per-IP limit
 * are taken in docs/api.md's order; a kept answer for the same question and index version
 * is served without a credit; sections are retrieved, and when nothing matches well
 * enough the answer says so without a credit; otherwise the answerer runs, capped at
 * 1,600 characters, its citations renumbered to the sources it used, the turn recorded.
 * The credit is spent only once the route has delivered the answer (`delivered`);
 * anything else gives it back (`undeliver`). Routes choose JSON or server-sent events.
 */
import { DomainError } from "../errors.ts";
import { PLANS } from "../limits/plans.ts";
import { retrieve, type SourceRef } from "./retrieve.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import {
  MAX_ANSWER_CHARS,
  type SourceText,
  truncateAnswer,
  type Turn,
  UpstreamError,
} from "./summarizer.ts";
import { MAX_USER_TURNS } from "./conversations.ts";
import { citedOnly } from "./citations.ts";
import { answerKey, cachedAnswer, keepAnswer } from "./cache.ts";
import { GENERAL_KNOWLEDGE_PREFIX } from "./model.ts";
import {
  checkedAnswer,
  checkSentence,
  NO_CHECK,
  sentencesOf,
  type SupportCheck,
  SupportChecker,
} from "./support.ts";
import { notOnSite } from "./not_on_site.ts";
import type { AnswerPin } from "../levers/answer_pins.ts";

export interface SummaryRequest {
  query: string;
  mode: "initial" | "followup";
  stream: boolean;
  conversationId?: string;
}

/** How the answer was made: pinned by the owner, kept from before, no match on the site, or made now. */
export type AnswerOrigin = "pinned" | "cache" | "nomatch" | "fresh";

/** Everything decided before the answerer streams; `meta` is the SSE meta payload. */
export interface Prepared {
  site: Site;
  req: SummaryRequest;
  conversationId: string;
  history: Turn[];
  texts: SourceText[];
  /** Numbered as the answerer cites them: `[n]` is `refs[n - 1]`. */
  refs: SourceRef[];
  /** The answer, when known before streaming (kept, no match, or composed at once). */
  fixed: Answer | null;
  /** The language of the sentence that says the site does not answer (the site's, else its pages'). */
  lang: string;
  origin: AnswerOrigin;
  /** The month of a reserved credit, until it is spent or given back. */
  creditMonth: string | null;
  /** A follow-up's reserved turn, until the answer is delivered or the turn given back. */
  turnHeld: boolean;
  creditsRemaining: number | null;
  cacheKey: Deno.KvKey | null;
  meta: {
    conversationId: string;
    conversationEnabled: boolean;
    mode: SummaryRequest["mode"];
    turn: number;
    turnsRemaining: number;
    sources: SourceRef[];
  };
}

/** Credits left above which one is taken while retrieval runs (near none, only once needed). */
const SPARE_CREDITS = 20;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
/** A promise that never rejects, so that it may be awaited later (or never). */
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
function unwrap<T>(r: Settled<T>): T {
  if (!r.ok) throw r.error;
  return r.value;
}

const EXTERNAL: SourceRef = { type: "external", label: "General AI knowledge" };
const WORDS_PER_DELTA = 4;

/** The page URL (without its section anchor) or document id of a source. */
const sourceId = (r: SourceRef) =>
  r.type === "page" ? r.url.split("#")[0] : r.type === "document" ? r.documentId : "";

/** The stream's `meta` (and the JSON answer's conversation fields) for a started turn. */
const metaOf = (
  started: { id: string; userTurns: number },
  req: SummaryRequest,
  followupsAllowed: boolean,
  sources: SourceRef[],
): Prepared["meta"] => ({
  conversationId: started.id,
  conversationEnabled: followupsAllowed && started.userTurns < MAX_USER_TURNS,
  mode: req.mode,
  turn: started.userTurns,
  turnsRemaining: MAX_USER_TURNS - started.userTurns,
  sources,
});

/** Runs the checks after body validation, takes turn, credit and IP allowance, retrieves. */
export async function prepare(
  s: Services,
  site: Site,
  req: SummaryRequest,
  ip: string,
): Promise<Prepared> {
  const followupsAllowed = PLANS[site.plan].followups && site.settings.followups;
  if (req.mode === "followup" && !PLANS[site.plan].followups) {
    throw new DomainError(
      "FOLLOWUP_REQUIRES_PAID_PLAN",
      "Follow-up questions need a paid plan.",
      { param: "mode" },
    );
  }
  if (req.mode === "followup" && !site.settings.followups) {
    throw new DomainError("FOLLOWUPS_DISABLED", "This site has turned follow-up questions off.", {
      param: "mode",
    });
  }
  const conv = req.mode === "followup"
    ? await s.conversations.reserveTurn(site.id, req.conversationId!)
    : null;
  const pin = await s.levers.answerPin(site.id, req.query);
  if (pin) return await pinnedAnswer(s, { site, req, ip, conv, pin, followupsAllowed });
  let creditMonth: string | null = null;
  // A credit taken while retrieval runs, until retrieval says whether the question needs it.
  let reserving: Promise<Settled<{ remaining: number | null; month: string }>> | null = null;
  try {
    const left = settle(s.credits.remaining(site)); // read while the kept answer is looked for
    // The per-IP count is taken meanwhile too, unless no credit is left: then retrieval first
    // decides whether the question needs one (credits come before the per-IP limit).
    const counted = left.then((r) =>
      r.ok && r.value !== 0 ? settle(s.ipLimit.hit(site.id, ip)) : null
    );
    // A first question answered before, on the same pages, is served again for nothing.
    const cacheKey = req.mode === "initial" ? await answerKey(s, site, req.query) : null;
    const kept = cacheKey ? await cachedAnswer(s.kv, cacheKey) : null;
    const records = conv?.records ?? [];
    const find = () =>
      retrieve(s, site, req.query, {
        questions: records.map((r) => r.question),
        sources: records.flatMap((r) => r.sources),
      });
    let found: Awaited<ReturnType<typeof find>> | null = null;
    let credit: { remaining: number | null; month: string } | null = null;
    const take = async () => {
      credit = await s.credits.reserve(site); // throws AI_CREDITS_EXHAUSTED
      creditMonth = credit.month;
    };
    // Credits are checked before the per-IP limit (docs/api.md's order), but only an answer still
    // to be made needs one: with none left, retrieval decides whether this question does.
    const remaining = kept ? null : unwrap(await left);
    if (!kept && remaining === 0) {
      found = await find();
      if (found.matched) await take();
    }
    // Before retrieval: a client over its limit costs little.
    const hit = await counted;
    if (hit) unwrap(hit);
    else await s.ipLimit.hit(site.id, ip);
    // KV writes take a few ms: the conversation and, with credits to spare, the credit are
    // written while retrieval runs; a question that needs no credit after all gives it back.
    const starting = conv ? null : settle(s.conversations.start(site.id));
    if (!kept && !found && (remaining === null || remaining > SPARE_CREDITS)) {
      reserving = settle(s.credits.reserve(site));
    }
    if (!kept) found ??= await find();
    if (reserving) {
      const r = await reserving;
      reserving = null;
      if (r.ok && found!.matched) [credit, creditMonth] = [r.value, r.value.month];
      else if (r.ok) await s.credits.refund(site.id, r.value.month);
      else if (found!.matched) throw r.error;
    }
    if (found?.matched && !credit) await take();
    const creditsRemaining = credit
      ? (credit as { remaining: number | null }).remaining
      : await s.credits.remaining(site);
    const started = conv ?? unwrap(await starting!);
    const history = conv?.turns ?? [];
    const lang = site.settings.lang || found?.texts[0]?.lang || "en";
    const base = {
      site,
      req,
      lang,
      conversationId: started.id,
      history,
      creditMonth,
      turnHeld: conv !== null,
      creditsRemaining,
      cacheKey,
    };
    const meta = (sources: SourceRef[]) => metaOf(started, req, followupsAllowed, sources);
    if (kept) {
      const fixed = { answered: true, check: NO_CHECK, ...kept };
      return {
        ...base,
        texts: [],
        refs: kept.sources,
        fixed,
        origin: "cache",
        meta: meta(kept.sources),
      };
    }
    const { texts, refs } = found!;
    if (!found!.matched) {
      // Nothing on the site answers: say so, for nothing.
      const fixed = abstained(lang, NO_CHECK);
      return { ...base, texts, refs: [], fixed, origin: "nomatch", meta: meta([]) };
    }
    const compose = s.summarizer.compose;
    if (compose) {
      const answer = truncateAnswer(compose({
        question: found!.question, // as search corrected it
        history,
        sources: texts,
        externalKnowledge: site.settings.externalKnowledge,
      }));
      const checked = checkedAnswer(answer.answer, texts, refs);
      const fixed = checked.answered
        ? { ...checked, truncated: answer.truncated }
        : abstained(lang, checked.check);
      if (!fixed.answered) {
        // The answerer found nothing to say after all: no answer, no charge.
        await s.credits.refund(site.id, creditMonth!);
        const remaining = creditsRemaining === null ? null : creditsRemaining + 1;
        return {
          ...base,
          creditMonth: null,
          creditsRemaining: remaining,
          texts,
          refs,
          fixed,
          origin: "nomatch",
          meta: meta([]),
        };
      }
      return { ...base, texts, refs, fixed, origin: "fresh", meta: meta(checked.sources) };
    }
    const sources = site.settings.externalKnowledge ? [...refs, EXTERNAL] : refs;
    return { ...base, texts, refs, fixed: null, origin: "fresh", meta: meta(sources) };
  } catch (err) {
    const early = reserving ? await reserving : null; // taken while retrieval failed
    if (early?.ok) await s.credits.refund(site.id, early.value.month);
    if (creditMonth) await s.credits.refund(site.id, creditMonth);
    if (conv) await s.conversations.releaseTurn(site.id, conv.id);
    throw err;
  }
}

/**
 * The answer the owner pinned for the question (lib/levers/answer_pins.ts), as it stands,
 * citing the pinned pages the site still has: the per-IP limit applies, no credit is spent.
 */
async function pinnedAnswer(
  s: Services,
  { site, req, ip, conv, pin, followupsAllowed }: {
    site: Site;
    req: SummaryRequest;
    ip: string;
    conv: Awaited<ReturnType<Services["conversations"]["reserveTurn"]>> | null;
    pin: AnswerPin;
    followupsAllowed: boolean;
  },
): Promise<Prepared> {
  try {
    await s.ipLimit.hit(site.id, ip);
    const started = conv ?? await s.conversations.start(site.id);
    const metas = await Promise.all(pin.sources.map((url) => s.pages.meta(site.id, url)));
    const sources: SourceRef[] = metas.flatMap((m) =>
      m ? [{ type: "page" as const, title: m.title, url: m.url }] : []
    );
    const fixed: Answer = {
      answer: pin.answer,
      truncated: false,
      sources,
      answered: true,
      check: NO_CHECK,
      pinned: true,
    };
    return {
      site,
      req,
      lang: site.settings.lang || "en",
      conversationId: started.id,
      history: conv?.turns ?? [],
      texts: [],
      refs: sources,
      fixed,
      origin: "pinned",
      creditMonth: null,
      turnHeld: conv !== null,
      creditsRemaining: await s.credits.remaining(site),
      cacheKey: null,
      meta: metaOf(started, req, followupsAllowed, sources),
    };
  } catch (err) {
    if (conv) await s.conversations.releaseTurn(site.id, conv.id);
    throw err;
  }
}

export interface Answer {
  /** The owner pinned this answer for the question (served as it stands, no credit). */
  pinned?: boolean;
  answer: string;
  truncated: boolean;
  /** Exactly the sources the answer cites, in the order of first citation. */
  sources: SourceRef[];
  /** false: the site does not answer this (one sentence says so; no sources, no credit). */
  answered: boolean;
  /** How the support check went (support.ts). */
  check: SupportCheck;
}

/** The answer that says the site does not answer the question, in its language. */
const abstained = (lang: string, check: SupportCheck): Answer => ({
  answer: notOnSite(lang),
  truncated: false,
  sources: [],
  answered: false,
  check,
});

/** The final answer of a streamed one: its checked sentences, renumbered to what they cite. */
function finalAnswer(p: Prepared, kept: string, check: SupportCheck, truncated: boolean): Answer {
  const cited = citedOnly(kept, p.refs);
  const external = p.site.settings.externalKnowledge && kept.includes(GENERAL_KNOWLEDGE_PREFIX);
  if (!check.supported && !external) return abstained(p.lang, check);
  return {
    answer: cited.answer,
    truncated,
    sources: external ? [...cited.sources, EXTERNAL] : cited.sources,
    answered: true,
    check,
  };
}

/**
 * The answer's deltas, then (as the generator's return value) the final answer, recorded
 * in the conversation and kept for the same question. Errors thrown before the first
 * delta let a route still answer with a plain JSON error; on any error the credit and a
 * follow-up's turn go back.
 */
export async function* answerDeltas(
  s: Services,
  p: Prepared,
  signal: AbortSignal,
): AsyncGenerator<string, Answer> {
  let result: Answer;
  try {
    if (p.fixed) {
      const words = p.fixed.answer.match(/\S+\s*/g) ?? [];
      for (let i = 0; i < words.length; i += WORDS_PER_DELTA) {
        signal.throwIfAborted();
        yield words.slice(i, i + WORDS_PER_DELTA).join("");
      }
      result = p.fixed;
    } else result = yield* modelDeltas(s, p, signal);
    // An answer that says the site does not answer costs nothing.
    if (!result.answered && p.creditMonth) {
      await s.credits.refund(p.site.id, p.creditMonth);
      p.creditMonth = null;
      if (p.creditsRemaining !== null) p.creditsRemaining++;
    }
    await s.conversations.record(p.site.id, p.conversationId, {
      question: p.req.query,
      answer: result.answer,
      sources: result.sources.map(sourceId).filter(Boolean),
    });
    if (p.cacheKey && p.origin === "fresh" && result.answered) {
      await keepAnswer(s.kv, p.cacheKey, result);
    }
  } catch (err) {
    await undeliver(s, p);
    throw err;
  }
  return result;
}

/**
 * A model's answer, capped, sent sentence by sentence once each is checked (support.ts): a
 * sentence goes out when the next one has begun, so its citations have come. The final
 * answer is the sentences kept, renumbered to the sources they cite.
 */
async function* modelDeltas(
  s: Services,
  p: Prepared,
  signal: AbortSignal,
): AsyncGenerator<string, Answer> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const checker = new SupportChecker(p.texts);
  const external = p.site.settings.externalKnowledge;
  let text = "", done = 0, kept = "", general = false;
  const check = { sentences: 0, supported: 0, removed: 0 };
  /** Checks the sentences of `text` from `done` on (all of them at the end, else the complete ones). */
  const take = (final: boolean): string => {
    const parts = sentencesOf(text.slice(done), checker.lang);
    const ready = final ? parts : parts.slice(0, -1);
    let out = "";
    for (const part of ready) {
      done += part.length;
      if (!/[\p{L}\p{N}]/u.test(part)) continue;
      general ||= external && part.trimStart().startsWith(GENERAL_KNOWLEDGE_PREFIX);
      check.sentences++;
      const c = checkSentence(checker, part, general);
      if (!c) {
        check.removed++;
        continue;
      }
      if (c.supported) check.supported++;
      out += c.text;
    }
    kept += out;
    return out;
  };
  let truncated = false;
  try {
    for await (
      const delta of s.summarizer.stream({
        question: p.req.query,
        history: p.history,
        sources: p.texts,
        externalKnowledge: external,
        signal: both,
      })
    ) {
      text += delta;
      if (text.length > MAX_ANSWER_CHARS) {
        const cut = truncateAnswer(text);
        [text, truncated] = [cut.answer, cut.truncated];
        stop.abort(); // enough: the rest would never be shown
        break;
      }
      if (!delta) continue;
      const out = take(false);
      if (out) yield out;
    }
  } catch (err) {
    if (signal.aborted || err instanceof DomainError) throw err;
    const before = !(err instanceof UpstreamError) || err.beforeFirstToken || text.length === 0;
    throw new DomainError(
      "UPSTREAM_ERROR",
      before
        ? "The AI answer could not be produced. Please try again."
        : "The AI answer stopped before it was complete.",
    );
  }
  const rest = take(true);
  const answer = finalAnswer(p, kept.trim(), check, truncated);
  if (!answer.answered) {
    // Nothing went out (no sentence was supported): the one sentence that says so.
    yield answer.answer;
  } else if (rest) yield rest;
  return answer;
}

/** The answer reached the client: its credit is spent. */
export function delivered(p: Prepared): void {
  p.creditMonth = null;
  p.turnHeld = false;
}

/** The answer did not reach the client: the credit, and a follow-up's turn, go back (once). */
export async function undeliver(s: Services, p: Prepared): Promise<void> {
  const { creditMonth, turnHeld } = p;
  delivered(p);
  if (creditMonth) await s.credits.refund(p.site.id, creditMonth);
  if (turnHeld) await s.conversations.releaseTurn(p.site.id, p.conversationId);
}
