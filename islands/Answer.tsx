/// <reference lib="dom" />
/** The AI answer: streamed from /api/summarize with its sources, follow-ups and feedback. */
import { useEffect, useRef, useState } from "preact/hooks";
import { HttpError, jsonBody, requestJson, resultHref } from "./api.ts";
import { onQuery } from "./bus.ts";
import { readEvents } from "./sse.ts";

export interface AnswerProps {
  apiKey: string;
  q: string;
  /** AI summaries are on for the site. */
  enabled: boolean;
  baseUrl: string;
}

interface Source {
  type: string;
  title?: string;
  url?: string;
  label?: string;
}

interface Turn {
  question: string;
  text: string;
  sources: Source[];
  status: "streaming" | "done" | "error";
  error?: string;
  turn?: number;
  feedback?: "sending" | "sent" | "failed";
}

/** The line a visitor reads when an answer could not be given. */
function answerFailure(e: unknown): string {
  if (e instanceof HttpError) {
    if (e.code === "AI_CREDITS_EXHAUSTED") return "AI answers are used up for this month.";
    if (e.code === "SUMMARY_RATE_LIMIT_EXCEEDED") {
      return "Too many questions at once. Try again in a minute.";
    }
    return e.message;
  }
  return "The answer could not be loaded. Try again.";
}

export function Answer(p: AnswerProps) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversation, setConversation] = useState<{ id: string; open: boolean } | null>(null);
  const [followup, setFollowup] = useState("");
  const abort = useRef<AbortController | null>(null);
  const asked = useRef("");

  const update = (i: number, change: (t: Turn) => Turn) =>
    setTurns((all) => all.map((t, j) => (j === i ? change(t) : t)));

  const ask = async (question: string, conversationId: string | null, index: number) => {
    const ctl = abort.current = new AbortController();
    try {
      const res = await fetch("/api/summarize", {
        ...jsonBody("POST", {
          query: question,
          stream: true,
          ...(conversationId ? { mode: "followup", conversationId } : {}),
        }),
        headers: { "Content-Type": "application/json", "X-API-Key": p.apiKey },
        credentials: "omit",
        signal: ctl.signal,
      });
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => null);
        throw new HttpError(
          res.status,
          body?.error?.code ?? "",
          body?.error?.message ?? "The answer failed.",
        );
      }
      for await (const { event, data } of readEvents(res.body)) {
        const d = data as Record<string, unknown>;
        if (event === "meta") {
          setConversation({ id: String(d.conversationId), open: d.conversationEnabled === true });
          update(
            index,
            (t) => ({ ...t, sources: (d.sources as Source[]) ?? [], turn: Number(d.turn) }),
          );
        } else if (event === "delta") {
          update(index, (t) => ({ ...t, text: t.text + String(d.text ?? "") }));
        } else if (event === "done") {
          update(index, (t) => ({ ...t, text: String(d.answer ?? t.text), status: "done" }));
        } else if (event === "error") {
          update(
            index,
            (t) => ({ ...t, status: "error", error: String(d.message ?? "The answer failed.") }),
          );
        }
      }
      update(index, (t) => (t.status === "streaming" ? { ...t, status: "done" } : t));
    } catch (e) {
      if (ctl.signal.aborted) return;
      update(index, (t) => ({ ...t, status: "error", error: answerFailure(e) }));
    }
  };

  const start = (q: string) => {
    if (!p.enabled || !q.trim() || q === asked.current) return;
    asked.current = q;
    abort.current?.abort();
    setConversation(null);
    setTurns([{ question: q, text: "", sources: [], status: "streaming" }]);
    ask(q, null, 0);
  };

  useEffect(() => {
    start(p.q);
    return onQuery(({ q }) => start(q));
  }, []);

  const sendFollowup = (e: Event) => {
    e.preventDefault();
    const q = followup.trim();
    if (!q || !conversation) return;
    setFollowup("");
    const index = turns.length;
    setTurns((all) => [...all, { question: q, text: "", sources: [], status: "streaming" }]);
    ask(q, conversation.id, index);
  };

  const feedback = async (i: number, helpful: boolean) => {
    const t = turns[i];
    if (!conversation || t.turn === undefined) return;
    update(i, (x) => ({ ...x, feedback: "sending" }));
    try {
      await requestJson(`/api/feedback?key=${encodeURIComponent(p.apiKey)}`, {
        ...jsonBody("POST", { conversationId: conversation.id, turn: t.turn, helpful }),
        credentials: "omit",
      });
      update(i, (x) => ({ ...x, feedback: "sent" }));
    } catch {
      update(i, (x) => ({ ...x, feedback: "failed" }));
    }
  };

  if (!p.enabled || !p.q) return <div class="answer-slot" />;
  const busy = turns.some((t) => t.status === "streaming");
  return (
    <section class="answer" aria-labelledby="answer-title">
      <h2 id="answer-title">
        <span class="spark" aria-hidden="true">✦</span> AI answer
      </h2>
      {turns.length === 0
        ? <p class="muted">The AI answer appears here (it needs JavaScript).</p>
        : null}
      {turns.map((t, i) => (
        <div class="turn" aria-live="polite" aria-busy={t.status === "streaming"}>
          {i > 0 ? <p class="question">{t.question}</p> : null}
          {t.status === "error"
            ? <p class="status error">{t.error}</p>
            : <p class="answer-text">{t.text || (t.status === "streaming" ? "Thinking…" : "")}</p>}
          {t.sources.length
            ? (
              <ol class="sources" aria-label="Sources">
                {t.sources.map((s) => {
                  const href = s.url ? resultHref(s.url, p.baseUrl) : null;
                  const label = s.title ?? s.label ?? "Source";
                  return <li key={label}>{href ? <a href={href}>{label}</a> : label}</li>;
                })}
              </ol>
            )
            : null}
          {t.status === "done" && t.turn !== undefined
            ? (
              <p class="feedback">
                {t.feedback === "sent"
                  ? "Thanks for the feedback."
                  : t.feedback === "failed"
                  ? "The feedback could not be sent."
                  : (
                    <>
                      Was this helpful?{" "}
                      <button
                        type="button"
                        class="button small"
                        disabled={t.feedback === "sending"}
                        onClick={() => feedback(i, true)}
                      >
                        Yes
                      </button>{" "}
                      <button
                        type="button"
                        class="button small"
                        disabled={t.feedback === "sending"}
                        onClick={() =>
                          feedback(i, false)}
                      >
                        No
                      </button>
                    </>
                  )}
              </p>
            )
            : null}
        </div>
      ))}
      {conversation?.open && !busy && turns.length
        ? (
          <form class="followup" onSubmit={sendFollowup}>
            <label for="followup-q" class="sr-only">Ask a follow-up question</label>
            <input
              id="followup-q"
              value={followup}
              maxLength={600}
              placeholder="Ask a follow-up…"
              onInput={(e) => setFollowup((e.target as HTMLInputElement).value)}
            />
            <button type="submit" class="button">Ask</button>
          </form>
        )
        : null}
    </section>
  );
}
