/**
 * Visitors' feedback on AI answers, in one module: POST /api/feedback stores one vote per
 * answered turn at ["feedback", siteId, conversationId, turn] (a second vote replaces the
 * first), and the analytics report and the dashboard read the votes of a period back here.
 */
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { conversationTurns, turnQuestion } from "../answers/conversations.ts";

/** Votes are kept past the longest report period (analytics' MAX_DAYS), then expire. */
const VOTE_TTL_MS = 180 * 86_400_000;
/** Comments a summary lists. */
const RECENT = 10;

export interface FeedbackInput {
  conversationId: string;
  turn: number;
  helpful: boolean;
  comment?: string;
}

/** A stored vote; `at` is epoch milliseconds; `question`: what the answer voted on answered. */
interface Vote {
  helpful: boolean;
  comment: string;
  at: number;
  question?: string;
}

/** Votes of a period and its latest comments, newest first (`at` as an ISO date). */
export interface FeedbackSummary {
  helpful: number;
  unhelpful: number;
  recent: {
    conversationId: string;
    turn: number;
    /** The question the answer voted on answered ("" when it was not kept). */
    question: string;
    helpful: boolean;
    comment: string;
    at: string;
  }[];
}

const voteKey = (site: string, conv: string, turn: number) => ["feedback", site, conv, turn];

/** Stores a vote on one turn of one of the site's conversations; 404 for any other. */
export async function recordFeedback(
  kv: Deno.Kv,
  clock: Clock,
  siteId: string,
  input: FeedbackInput,
): Promise<void> {
  const turns = await conversationTurns(kv, clock, siteId, input.conversationId);
  if (turns === null || input.turn > turns) {
    throw new DomainError("CONVERSATION_NOT_FOUND", "This conversation or turn does not exist.", {
      param: turns === null ? "conversationId" : "turn",
    });
  }
  const comment = input.comment?.trim() ?? "";
  // The question is kept beside a comment, so the owner reads what the answer was about.
  const question = comment
    ? (await turnQuestion(kv, siteId, input.conversationId, input.turn)).slice(0, 500)
    : "";
  const vote: Vote = {
    helpful: input.helpful,
    comment,
    at: clock(),
    ...(question ? { question } : {}),
  };
  // One key per turn: the last vote wins, so no read and no check are needed.
  await kv.set(voteKey(siteId, input.conversationId, input.turn), vote, { expireIn: VOTE_TTL_MS });
}

/** Helpful and unhelpful votes cast since `sinceMs`, and the latest comments among them. */
export async function feedbackSummary(
  kv: Deno.Kv,
  siteId: string,
  sinceMs: number,
): Promise<FeedbackSummary> {
  const out: FeedbackSummary = { helpful: 0, unhelpful: 0, recent: [] };
  const comments: { at: number; item: FeedbackSummary["recent"][number] }[] = [];
  for await (const e of kv.list<Vote>({ prefix: ["feedback", siteId] })) {
    const v = e.value;
    if (typeof v?.helpful !== "boolean" || !(v.at >= sinceMs)) continue;
    out[v.helpful ? "helpful" : "unhelpful"]++;
    if (!v.comment) continue;
    const [, , conversationId, turn] = e.key as [string, string, string, number];
    const at = new Date(v.at).toISOString();
    comments.push({
      at: v.at,
      item: {
        conversationId,
        turn,
        question: v.question ?? "",
        helpful: v.helpful,
        comment: v.comment,
        at,
      },
    });
  }
  comments.sort((a, b) => b.at - a.at);
  out.recent = comments.slice(0, RECENT).map((c) => c.item);
  return out;
}
