/**
 * Conversations in Deno KV: the server's count of user turns (at most 20) in one small
 * record, and each answered turn (question, answer, the sources it used) under a key
 * of its own, so 20 long turns in any script never come near KV's 64 KiB per value. A
 * turn is reserved before the answer is made, so parallel follow-ups cannot pass the
 * limit, and released if no answer was delivered.
 */
import type { Clock } from "../clock.ts";
import { busy, DomainError } from "../errors.ts";
import { randomBase62 } from "../sites/keys.ts";
import type { Turn } from "./summarizer.ts";

export const MAX_USER_TURNS = 20;
export const CONVERSATION_TTL_MS = 24 * 3600_000;
/** A turn's record outlives any conversation kept alive by its 20 questions. */
const TURN_TTL_MS = MAX_USER_TURNS * CONVERSATION_TTL_MS;

/** One answered question, as kept. */
export interface TurnRecord {
  question: string;
  answer: string;
  /** Pages (URL) and documents (id) the answer used. */
  sources: string[];
}

interface Header {
  id: string;
  siteId: string;
  /** User turns counted so far, including ones whose answer is still being made. */
  userTurns: number;
  /** Turns recorded so far: the next one's key. */
  recorded?: number;
  updatedAt: number;
  /** Records written before turns had keys of their own kept them here. */
  turns?: Turn[];
}

export interface Conversation {
  id: string;
  siteId: string;
  userTurns: number;
  /** Earlier turns, oldest first, as the model sees them again. */
  turns: Turn[];
  /** Earlier questions and the sources their answers used, oldest first. */
  records: TurnRecord[];
  updatedAt: number;
}

const key = (site: string, id: string) => ["conv", site, id];
const turnKey = (site: string, id: string, n: number) => ["convturn", site, id, n];
const notFound = () =>
  new DomainError("CONVERSATION_NOT_FOUND", "This conversation does not exist or has expired.", {
    param: "conversationId",
  });

export class Conversations {
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Starts a conversation whose first user turn is the initial question. */
  async start(siteId: string): Promise<Conversation> {
    const head: Header = {
      id: "cv_" + randomBase62(24),
      siteId,
      userTurns: 1,
      recorded: 0,
      updatedAt: this.clock(),
    };
    await this.kv.set(key(siteId, head.id), head, { expireIn: CONVERSATION_TTL_MS });
    return { ...head, turns: [], records: [] };
  }

  /** Counts one more user turn: 404 for unknown, expired or other sites' ids, 409 past the limit. */
  async reserveTurn(siteId: string, id: string): Promise<Conversation> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<Header>(key(siteId, id));
      const head = entry.value;
      if (!head || this.clock() - head.updatedAt > CONVERSATION_TTL_MS) throw notFound();
      if (head.userTurns >= MAX_USER_TURNS) {
        throw new DomainError(
          "CONVERSATION_TURN_LIMIT_REACHED",
          `A conversation holds at most ${MAX_USER_TURNS} questions. Start a new one.`,
          { param: "conversationId" },
        );
      }
      const next = { ...head, userTurns: head.userTurns + 1, updatedAt: this.clock() };
      const ok = await this.kv.atomic().check(entry)
        .set(key(siteId, id), next, { expireIn: CONVERSATION_TTL_MS }).commit();
      if (ok.ok) return { ...next, ...await this.history(siteId, next) };
    }
    throw busy("The conversation is busy. Retry.");
  }

  /** The recorded turns of a conversation, oldest first. */
  private async history(siteId: string, head: Header) {
    const records: TurnRecord[] = [];
    // Older records kept their turns inline, as question and answer pairs.
    const inline = head.turns ?? [];
    for (let i = 0; i + 1 < inline.length; i += 2) {
      records.push({ question: inline[i].content, answer: inline[i + 1].content, sources: [] });
    }
    for await (const e of this.kv.list<TurnRecord>({ prefix: ["convturn", siteId, head.id] })) {
      records.push(e.value);
    }
    const turns: Turn[] = records.flatMap((r) => [
      { role: "user" as const, content: r.question },
      { role: "assistant" as const, content: r.answer },
    ]);
    return { turns, records };
  }

  /** Gives back a reserved turn whose answer was never delivered. */
  async releaseTurn(siteId: string, id: string): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<Header>(key(siteId, id));
      if (!entry.value) return;
      const next = { ...entry.value, userTurns: Math.max(0, entry.value.userTurns - 1) };
      const ok = await this.kv.atomic().check(entry)
        .set(key(siteId, id), next, { expireIn: CONVERSATION_TTL_MS }).commit();
      if (ok.ok) return;
    }
  }

  /** Keeps a question, its answer and the sources it used for the follow-ups after it. */
  async record(siteId: string, id: string, turn: TurnRecord): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<Header>(key(siteId, id));
      if (!entry.value) throw notFound();
      const n = entry.value.recorded ?? 0;
      const next = { ...entry.value, recorded: n + 1, updatedAt: this.clock() };
      const ok = await this.kv.atomic().check(entry)
        .set(key(siteId, id), next, { expireIn: CONVERSATION_TTL_MS })
        .set(turnKey(siteId, id, n), turn, { expireIn: TURN_TTL_MS })
        .commit();
      if (ok.ok) return;
    }
    throw busy("The conversation is busy. Retry.");
  }
}

/** User turns of a site's live conversation, or null when it is unknown, expired or another site's. */
export async function conversationTurns(
  kv: Deno.Kv,
  clock: Clock,
  siteId: string,
  id: string,
): Promise<number | null> {
  const head = (await kv.get<Header>(key(siteId, id))).value;
  if (!head || clock() - head.updatedAt > CONVERSATION_TTL_MS) return null;
  return head.userTurns;
}

/** The question of a conversation's turn (from 1), as it was asked, or "" when not kept. */
export async function turnQuestion(
  kv: Deno.Kv,
  siteId: string,
  id: string,
  turn: number,
): Promise<string> {
  const record = (await kv.get<TurnRecord>(turnKey(siteId, id, turn - 1))).value;
  return typeof record?.question === "string" ? record.question : "";
}
