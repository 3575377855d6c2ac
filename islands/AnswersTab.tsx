/// <reference lib="dom" />
/**
 * The answers tab: answer pins (a question's answer as the owner writes it, shown as a visitor
 * will see it while typed), and the self-check of the site's own questions with its last runs.
 */
import { useState } from "preact/hooks";
import { LeverRows } from "./LeverRows.tsx";
import { QueryMatchFields } from "./QueryMatchFields.tsx";
import {
  type AnswerPinDraft,
  askSelfCheck,
  fieldMessage,
  items,
  type Limits,
  saveAnswerPins,
  type SelfCheckRun,
} from "./levers_api.ts";
import { fmt, Status, type StatusValue } from "./ui.tsx";
import { useStatus } from "./use_status.ts";

const pct = (n: number) => `${Math.round(n * 100)}%`;

export function AnswersTab(
  p: {
    siteId: string;
    list: AnswerPinDraft[];
    runs: SelfCheckRun[];
    limits: Limits;
    /** The panel keeps both, so they outlive a switch of tabs. */
    setList: (list: AnswerPinDraft[]) => void;
    setRuns: (runs: SelfCheckRun[]) => void;
  },
) {
  const { list, runs, setList, setRuns } = p;
  const [query, setQuery] = useState("");
  const [contains, setContains] = useState(false);
  const [answer, setAnswer] = useState("");
  const [sources, setSources] = useState("");
  const [status, setStatus] = useStatus();
  const [checking, setChecking] = useState<StatusValue>(null);
  const maxChars = p.limits.answerChars ?? 1600;
  const draft: AnswerPinDraft | null = query.trim() && answer.trim()
    ? {
      query: query.trim(),
      match: contains ? "contains" : "exact",
      answer: answer.trim(),
      sources: items(sources),
    }
    : null;
  const save = async (next: AnswerPinDraft[]) => {
    setStatus({ kind: "busy", text: "Saving…" });
    try {
      setList((await saveAnswerPins(p.siteId, next)).answers);
      setStatus({ kind: "ok", text: "Saved: answers use it now." });
      return true;
    } catch (e) {
      const name = (kind: string, i: number) => kind === "answers" ? next[i]?.query : undefined;
      setStatus({ kind: "error", text: fieldMessage(e, name) });
      return false;
    }
  };
  const add = async (e: Event) => {
    e.preventDefault();
    if (draft && (await save([...list, draft]))) {
      [setQuery, setAnswer, setSources].forEach((f) => f(""));
    }
  };
  const check = async () => {
    setChecking({ kind: "busy", text: "Asking the site's own questions…" });
    try {
      const run = await askSelfCheck(p.siteId);
      setRuns([run, ...runs].slice(0, 20));
      setChecking(
        run.questions ? { kind: "ok", text: `Done: ${fmt(run.questions)} questions asked.` } : {
          kind: "ok",
          text: "Your pages ask no questions yet: it asks headings that end in “?”, " +
            "definition lists, details and FAQPage data.",
        },
      );
    } catch (e) {
      setChecking({ kind: "error", text: fieldMessage(e) });
    }
  };
  return (
    <div>
      <Status value={status} />
      <LeverRows
        label="Answer pins"
        empty="No pinned answers yet."
        list={list}
        save={save}
        row={(a) => (
          <>
            <strong>{a.query}</strong> <span class="muted">({a.match})</span>
            <span class="answer-pin">{a.answer}</span>
            {a.sources.length ? <span class="path">Sources: {a.sources.join(", ")}</span> : null}
          </>
        )}
      />
      <form class="lever-form" onSubmit={add} aria-label="Pin an answer">
        <QueryMatchFields
          id="ans-query"
          label="Question"
          placeholder="Do you ship to Canada?"
          containsLabel="Also questions that contain it"
          query={query}
          setQuery={setQuery}
          contains={contains}
          setContains={setContains}
        />
        <div class="field">
          <label for="ans-text">Answer ({answer.length} of {maxChars} characters)</label>
          <textarea
            id="ans-text"
            rows={4}
            maxLength={maxChars}
            value={answer}
            onInput={(e) => setAnswer(e.currentTarget.value)}
            placeholder="No, we only ship within Europe."
          />
        </div>
        <div class="field">
          <label for="ans-sources">
            Pages it cites (paths, comma-separated; at most {p.limits.answerSources ?? 10})
          </label>
          <input
            id="ans-sources"
            value={sources}
            onInput={(e) => setSources(e.currentTarget.value)}
            placeholder="/shipping"
          />
        </div>
        {draft
          ? (
            <div class="preview" aria-label="What a visitor sees">
              <p class="muted">A visitor asking “{draft.query}” sees:</p>
              <p class="answer-pin">{draft.answer}</p>
              {draft.sources.length ? <p class="path">{draft.sources.join(" · ")}</p> : null}
            </div>
          )
          : null}
        <p class="actions">
          <button
            type="submit"
            class="button primary"
            disabled={!draft || list.length >= (p.limits.answers ?? 500)}
          >
            Pin answer
          </button>
        </p>
      </form>
      <h3>Self-check</h3>
      <p class="muted">
        The questions your own pages ask and answer (FAQ headings, definition lists, details,
        FAQPage data), asked as visitors ask them. No credit is spent.
      </p>
      <p class="actions">
        <button type="button" class="button small" onClick={check}>Run self-check</button>
      </p>
      <Status value={checking} />
      {runs.length
        ? (
          <table class="table" data-selfcheck>
            <caption class="sr-only">Self-check runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Questions</th>
                <th scope="col">F1</th>
                <th scope="col">Right page first</th>
                <th scope="col">Not answered</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.at}>
                  <td>
                    <time dateTime={r.at}>{r.at.slice(0, 16).replace("T", " ")}</time>
                  </td>
                  <td>{fmt(r.questions)}</td>
                  <td>{r.f1.toFixed(2)}</td>
                  <td>{pct(r.citedFirst)}</td>
                  <td>{pct(r.abstained)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
        : <p class="muted">No run yet.</p>}
      {runs[0]?.worst.length
        ? (
          <>
            <h4>Weakest answers of the last run</h4>
            <ul class="rows" aria-label="Weakest answers">
              {runs[0].worst.map((w) => (
                <li key={w.question}>
                  <span class="row-main">
                    <strong>{w.question}</strong>
                    <span class="path">
                      expected {w.expected}, cited {w.got || "nothing"}
                    </span>
                  </span>
                </li>
              ))}
            </ul>
          </>
        )
        : null}
    </div>
  );
}
