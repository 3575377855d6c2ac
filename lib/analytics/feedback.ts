/**
 * Answer feedback as POST /api/feedback stores it, at ["feedback", siteId, conversationId, turn]
 * with value {helpful, comment?, at}: counted here for the analytics report.
 */

export interface FeedbackRecord {
  helpful: boolean;
  comment?: string;
  at: string;
}

export interface FeedbackSummary {
  helpful: number;
  unhelpful: number;
  /** The latest comments, newest first. */
  recent: { conversationId: string; turn: number; helpful: boolean; comment: string; at: string }[];
}

const RECENT = 10;

/** Helpful and unhelpful counts since `sinceMs`, and the latest comments. */
export async function feedbackSummary(
  kv: Deno.Kv,
  siteId: string,
  sinceMs: number,
): Promise<FeedbackSummary> {
  const out: FeedbackSummary = { helpful: 0, unhelpful: 0, recent: [] };
  for await (const e of kv.list<FeedbackRecord>({ prefix: ["feedback", siteId] })) {
    const r = e.value;
    const at = Date.parse(r?.at ?? "");
    if (!r || typeof r.helpful !== "boolean" || !(at >= sinceMs)) continue;
    if (r.helpful) out.helpful++;
    else out.unhelpful++;
    if (typeof r.comment === "string" && r.comment.trim()) {
      const [, , conversationId, turn] = e.key;
      out.recent.push({
        conversationId: String(conversationId),
        turn: Number(turn),
        helpful: r.helpful,
        comment: r.comment,
        at: r.at,
      });
    }
  }
  out.recent.sort((a, b) => b.at.localeCompare(a.at));
  out.recent.length = Math.min(out.recent.length, RECENT);
  return out;
}
