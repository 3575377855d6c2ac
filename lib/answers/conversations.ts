/**
 * Conversations in Deno KV: the turns the model sees again on a follow-up, and
 * the server's count of user turns (at most 20). A turn is reserved before the
 * model is asked, so parallel follow-ups cannot pass the limit, and released if
 * no answer ever started.
 */
import type { Clock } from "../clock.ts";
import { ApiError, busy } from "../http/errors.ts";
import { randomBase62 } from "../sites/keys.ts";
import type { Turn } from "./summarizer.ts";

export const MAX_USER_TURNS = 20;
export const CONVERSATION_TTL_MS = 24 * 3600_000;

export interface Conversation {
  id: string;
  siteId: string;
  /** User turns counted so far, including ones whose answer is still streaming. */
  userTurns: number;
  turns: Turn[];
  updatedAt: number;
}

const key = (site: string, id: string) => ["conv", site, id];
const notFound = () =>
  new ApiError("CONVERSATION_NOT_FOUND", "This conversation does not exist or has expired.", {
    param: "conversationId",
  });

export class Conversations {
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Starts a conversation whose first user turn is the initial question. */
  async start(siteId: string): Promise<Conversation> {
    const conv: Conversation = {
      id: "cv_" + randomBase62(24),
      siteId,
      userTurns: 1,
      turns: [],
      updatedAt: this.clock(),
    };
    await this.kv.set(key(siteId, conv.id), conv, { expireIn: CONVERSATION_TTL_MS });
    return conv;
  }

  /** Counts one more user turn: 404 for unknown, expired or other sites' ids, 409 past the limit. */
  async reserveTurn(siteId: string, id: string): Promise<Conversation> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<Conversation>(key(siteId, id));
      const conv = entry.value;
      if (!conv || this.clock() - conv.updatedAt > CONVERSATION_TTL_MS) throw notFound();
      if (conv.userTurns >= MAX_USER_TURNS) {
        throw new ApiError(
          "CONVERSATION_TURN_LIMIT_REACHED",
          `A conversation holds at most ${MAX_USER_TURNS} questions. Start a new one.`,
          { param: "conversationId" },
        );
      }
      const next = { ...conv, userTurns: conv.userTurns + 1, updatedAt: this.clock() };
      const ok = await this.kv.atomic().check(entry)
        .set(key(siteId, id), next, { expireIn: CONVERSATION_TTL_MS }).commit();
      if (ok.ok) return next;
    }
    throw busy("The conversation is busy. Retry.");
  }

  /** Gives back a reserved turn whose answer never started. */
  async releaseTurn(siteId: string, id: string): Promise<void> {
    await this.change(siteId, id, (c) => ({ ...c, userTurns: Math.max(0, c.userTurns - 1) }));
  }

  /** Keeps a question and its answer for the follow-ups that come after it. */
  async record(siteId: string, id: string, question: string, answer: string): Promise<void> {
    await this.change(siteId, id, (c) => ({
      ...c,
      turns: [...c.turns, { role: "user", content: question }, {
        role: "assistant",
        content: answer,
      }],
      updatedAt: this.clock(),
    }));
  }

  private async change(siteId: string, id: string, f: (c: Conversation) => Conversation) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<Conversation>(key(siteId, id));
      if (!entry.value) return;
      const ok = await this.kv.atomic().check(entry)
        .set(key(siteId, id), f(entry.value), { expireIn: CONVERSATION_TTL_MS }).commit();
      if (ok.ok) return;
    }
  }
}
