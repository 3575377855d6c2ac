/// <reference lib="dom" />
/** The AI answer: streamed from /api/summarize with its sources, follow-ups and feedback. */
import { useEffect, useRef, useState } from "preact/hooks";
import { type AnswerSource, MAX_FEEDBACK_COMMENT_CHARS } from "../lib/wire_types.ts";
import { sendFeedback, summarize } from "../widget/client/answers.ts";
import { answerFailure, t } from "../widget/client/strings.ts";
import { publicApi, resultHref } from "./api.ts";
import { onQuery } from "./bus.ts";

export interface AnswerProps {
  apiKey: string;
  q: string;
  /** AI summaries are on for the site. */
  enabled: boolean;
  baseUrl: string;
}

interface Turn {
  question: string;
  text: string;
  sources: AnswerSource[];
  /** How many pages the answer could draw on (its `meta`), before it cited any. */
  candidates?: number;
  /** False when the server said nothing on the site answers it. */
  answered?: boolean;
  status: "streaming" | "done" | "error";
  error?: string;
  turn?: number;
  /** `comment`: voted down, and asked (optionally) what was missing. */
  feedback?: "sending" | "comment" | "sent" | "failed";
}

/** Answer text with its [n] citations as small links to the cited pages (text, never HTML). */
function Cited(
  { text, sources, baseUrl }: { text: string; sources: AnswerSource[]; baseUrl: string },
) {
  const out = [];
  let at = 0;
  for (const m of text.matchAll(/\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]/g)) {
    const nums = m[1].split(",").map((n) => Number(n.trim()));
    if (!nums.every((n) => n >= 1 && n <= sources.length)) continue;
    out.push(text.slice(at, m.index).replace(/\s+$/, ""));
    for (const n of nums) {
      const s = sources[n - 1];
      const href = s.url ? resultHref(s.url, baseUrl) : null;
      const label = t("sourceN", { n, title: s.title ?? s.label ?? "" });
      out.push(
        href
          ? <a class="cite" href={href} aria-label={label}>{n}</a>
          : <span class="cite" title={label}>{n}</span>,
      );
    }
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return <>{out}</>;
}

/** A thumb up; the thumb down is the same, turned. */
function Thumb({ down }: { down?: boolean }) {
  return (
    <svg viewBox="0 0 24 24" class={down ? "icon down" : "icon"} aria-hidden="true">
      <path d="M2 21h4V9H2v12Zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2Z" />
    </svg>
  );
}

/** After a thumbs down: what was missing, optional, then Send or Skip (Escape skips too). */
function FeedbackComment({ id, onDone }: { id: string; onDone: (comment: string) => void }) {
  const [text, setText] = useState("");
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  return (
    <form
      class="feedback-comment"
      onSubmit={(e) => {
        e.preventDefault();
        onDone(text);
      }}
    >
      <label for={id}>{t("feedbackComment")}</label>
      <textarea
        id={id}
        ref={area}
        rows={3}
        dir="auto"
        maxLength={MAX_FEEDBACK_COMMENT_CHARS}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => e.key === "Escape" && onDone("")}
      />
      <div class="feedback-actions">
        <button type="submit" class="button small primary">{t("send")}</button>
        <button type="button" class="button small" onClick={() => onDone("")}>{t("skip")}</button>
      </div>
    </form>
  );
}

export function AnswerBox(p: AnswerProps) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversation, setConversation] = useState<{ id: string; open: boolean } | null>(null);
  const [followup, setFollowup] = useState("");
  const abort = useRef<AbortController | null>(null);
  const asked = useRef("");
  // On a phone the answer starts folded to its first lines, so results show on the first screen.
  const [folded, setFolded] = useState(true);
  /** Each turn's bare vote down, sent at once; a comment follows it, so it replaces it. */
  const downVotes = useRef(new Map<number, Promise<boolean>>());

  const update = (i: number, change: (turn: Turn) => Turn) =>
    setTurns((all) => all.map((x, j) => (j === i ? change(x) : x)));

  const ask = async (question: string, conversationId: string | null, index: number) => {
    const ctl = abort.current = new AbortController();
    try {
      const done = await summarize(
        publicApi(p.apiKey),
        conversationId
          ? { query: question, mode: "followup", conversationId }
          : { query: question },
        ctl.signal,
        (meta) => {
          setConversation({
            id: String(meta.conversationId),
            open: meta.conversationEnabled === true,
          });
          const sources = meta.sources ?? [];
          update(index, (x) => ({ ...x, sources, candidates: sources.length, turn: meta.turn }));
        },
        (piece) => update(index, (x) => ({ ...x, text: x.text + piece })),
      );
      update(index, (x) => ({
        ...x,
        text: done.answer ?? x.text,
        sources: done.sources ?? x.sources,
        answered: done.answered,
        status: "done",
      }));
    } catch (e) {
      if (ctl.signal.aborted) return;
      update(index, (x) => ({ ...x, status: "error", error: answerFailure(e) }));
    }
  };

  const start = (q: string) => {
    if (!p.enabled || !q.trim() || q === asked.current) return;
    asked.current = q;
    abort.current?.abort();
    setConversation(null);
    setFolded(true);
    downVotes.current.clear();
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

  const vote = async (i: number, helpful: boolean) => {
    const turn = turns[i].turn;
    if (!conversation || turn === undefined) return;
    const send = (comment?: string) =>
      sendFeedback(publicApi(p.apiKey), {
        conversationId: conversation.id,
        turn,
        helpful,
        comment,
      });
    if (!helpful) {
      // The vote counts at once; the comment box asks, optionally, what was missing.
      downVotes.current.set(i, send());
      return update(i, (x) => ({ ...x, feedback: "comment" }));
    }
    update(i, (x) => ({ ...x, feedback: "sending" }));
    const taken = await send();
    update(i, (x) => ({ ...x, feedback: taken ? "sent" : "failed" }));
  };

  /** After a vote down: the comment, if any, with the same vote; else the bare vote's outcome. */
  const comment = async (i: number, text: string) => {
    const turn = turns[i].turn;
    const first = downVotes.current.get(i) ?? Promise.resolve(false);
    if (!conversation || turn === undefined) return;
    update(i, (x) => ({ ...x, feedback: "sending" }));
    let taken = await first;
    if (text.trim()) {
      taken = await sendFeedback(publicApi(p.apiKey), {
        conversationId: conversation.id,
        turn,
        helpful: false,
        comment: text,
      });
    }
    update(i, (x) => ({ ...x, feedback: taken ? "sent" : "failed" }));
    // The box and its buttons are gone: focus stays with the answer's thanks.
    requestAnimationFrame(() =>
      document.getElementById(`feedback-${i}`)?.focus({ preventScroll: true })
    );
  };

  if (!p.enabled || !p.q) return <div class="answer-slot" />;
  const busy = turns.some((x) => x.status === "streaming");
  // Nothing matched: no answer. One plain sentence, nothing to rate or follow up on.
  const none = (x: Turn) =>
    x.status === "done" && (x.answered === false || (!x.candidates && x.sources.length === 0));
  const answered = turns.some((x) => x.status === "done" && !none(x));
  return (
    <section class={folded ? "answer folded" : "answer"} aria-labelledby="answer-title">
      <h2 id="answer-title">
        <svg viewBox="0 0 24 24" class="icon spark" aria-hidden="true">
          <path d="M12 2l2.2 6.6L21 11l-6.8 2.4L12 20l-2.2-6.6L3 11l6.8-2.4L12 2z" />
        </svg>{" "}
        {t("aiAnswer")}
      </h2>
      {turns.length === 0 ? <p class="muted">{t("answerNeedsJs")}</p> : null}
      {turns.map((x, i) => (
        <div class="turn" aria-live="polite" aria-busy={x.status === "streaming"}>
          {i > 0 ? <p class="question">{x.question}</p> : null}
          {x.status === "error"
            ? <p class="status error">{x.error}</p>
            : none(x)
            ? <p class="answer-text">{t("noAnswer")}</p>
            : (
              <p class="answer-text" dir="auto">
                {x.text
                  ? <Cited text={x.text} sources={x.sources} baseUrl={p.baseUrl} />
                  : x.status === "streaming"
                  ? t("thinking")
                  : ""}
              </p>
            )}
          {x.sources.length
            ? (
              <ol class="sources" aria-label={t("sources")}>
                {x.sources.map((s) => {
                  const href = s.url ? resultHref(s.url, p.baseUrl) : null;
                  const label = s.title ?? s.label ?? t("sourcePage");
                  return <li key={label}>{href ? <a href={href}>{label}</a> : label}</li>;
                })}
              </ol>
            )
            : null}
          {x.status === "done" && !none(x) && x.turn !== undefined
            ? (
              <div class="feedback" id={`feedback-${i}`} tabindex={-1}>
                {x.feedback === "sent"
                  ? t("thanks")
                  : x.feedback === "failed"
                  ? t("feedbackFailed")
                  : x.feedback === "comment"
                  ? (
                    <FeedbackComment
                      id={`feedback-comment-${i}`}
                      onDone={(c) => comment(i, c)}
                    />
                  )
                  : (
                    <>
                      {t("helpful")}
                      {[true, false].map((helpful) => (
                        <button
                          key={String(helpful)}
                          type="button"
                          class="button small thumb"
                          aria-label={t(helpful ? "yes" : "no")}
                          title={t(helpful ? "yes" : "no")}
                          disabled={x.feedback === "sending"}
                          onClick={() => vote(i, helpful)}
                        >
                          <Thumb down={!helpful} />
                        </button>
                      ))}
                    </>
                  )}
              </div>
            )
            : null}
        </div>
      ))}
      {turns.length && turns[0].status !== "error" && !none(turns[0])
        ? (
          <button
            type="button"
            class="button small more"
            aria-expanded={!folded}
            onClick={() => setFolded(!folded)}
          >
            {t(folded ? "showMore" : "showLess")}
          </button>
        )
        : null}
      {conversation?.open && !busy && answered
        ? (
          <form class="followup" onSubmit={sendFollowup}>
            <label for="followup-q" class="sr-only">{t("followupLabel")}</label>
            <input
              id="followup-q"
              value={followup}
              maxLength={600}
              placeholder={t("followupPlaceholder")}
              onInput={(e) => setFollowup((e.target as HTMLInputElement).value)}
            />
            <button type="submit" class="button">{t("ask")}</button>
          </form>
        )
        : null}
    </section>
  );
}
