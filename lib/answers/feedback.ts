/**
 * Visitors' feedback on AI answers, per site: one vote per answered turn (a second vote
 * replaces the first), running totals of helpful and unhelpful votes, and the latest
 * comments, which the owner's dashboard reads with `feedbackSummary`.
 */
import type { Clock } from "../clock.ts";
import { ApiError, busy } from "../http/errors.ts";
import { conversationTurns } from "./conversations.ts";

export const MAX_COMMENT_CHARS = 500;
/** Comments are kept this long for the dashboard; totals are kept for good. */
const COMMENT_TTL_MS = 180 * 24 * 3600_000;

export interface FeedbackInput {
  conversationId: string;
  turn: number;
  helpful: boolean;
  comment?: string;
}

interface Vote {
  helpful: boolean;
  comment: string;
  at: number;
}

interface Totals {
  helpful: number;
  unhelpful: number;
}

/** What the dashboard shows: the vote totals and the latest comments, newest first. */
export interface FeedbackSummary extends Totals {
  recent: { conversationId: string; turn: number; helpful: boolean; comment: string; at: string }[];
}

const voteKey = (site: string, conv: string, turn: number) => ["feedback", site, conv, turn];
const totalsKey = (site: string) => ["feedbacktotals", site];
const commentKey = (site: string, at: number, conv: string, turn: number) => [
  "feedbackcomment",
  site,
  at,
  conv,
  turn,
];

/** Stores a vote on one turn of one of the site's conversations; 404 for any other. */
export async function recordFeedback(
  kv: Deno.Kv,
  clock: Clock,
  siteId: string,
  input: FeedbackInput,
): Promise<void> {
  const turns = await conversationTurns(kv, clock, siteId, input.conversationId);
  if (turns === null || input.turn > turns) {
    throw new ApiError("CONVERSATION_NOT_FOUND", "This conversation or turn does not exist.", {
      param: turns === null ? "conversationId" : "turn",
    });
  }
  const vote: Vote = { helpful: input.helpful, comment: input.comment?.trim() ?? "", at: clock() };
  const key = voteKey(siteId, input.conversationId, input.turn);
  for (let attempt = 0; attempt < 50; attempt++) {
    const [old, totals] = await kv.getMany<[Vote, Totals]>([key, totalsKey(siteId)]);
    const t = { ...(totals.value ?? { helpful: 0, unhelpful: 0 }) };
    if (old.value) t[old.value.helpful ? "helpful" : "unhelpful"]--;
    t[vote.helpful ? "helpful" : "unhelpful"]++;
    const op = kv.atomic().check(old, totals).set(key, vote, { expireIn: COMMENT_TTL_MS })
      .set(totalsKey(siteId), t);
    if (old.value?.comment) {
      op.delete(commentKey(siteId, old.value.at, input.conversationId, input.turn));
    }
    if (vote.comment) {
      op.set(commentKey(siteId, vote.at, input.conversationId, input.turn), vote, {
        expireIn: COMMENT_TTL_MS,
      });
    }
    if ((await op.commit()).ok) return;
  }
  throw busy("Too much feedback at once. Retry.");
}

/** Helpful and unhelpful totals and the latest `limit` comments of a site. */
export async function feedbackSummary(
  kv: Deno.Kv,
  siteId: string,
  limit = 20,
): Promise<FeedbackSummary> {
  const totals = (await kv.get<Totals>(totalsKey(siteId))).value ?? { helpful: 0, unhelpful: 0 };
  const recent: FeedbackSummary["recent"] = [];
  const iter = kv.list<Vote>({ prefix: ["feedbackcomment", siteId] }, { reverse: true, limit });
  for await (const e of iter) {
    const [, , , conversationId, turn] = e.key as [string, string, number, string, number];
    recent.push({
      conversationId,
      turn,
      helpful: e.value.helpful,
      comment: e.value.comment,
      at: new Date(e.value.at).toISOString(),
    });
  }
  return { ...totals, recent };
}
