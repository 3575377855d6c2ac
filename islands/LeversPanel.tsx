/// <reference lib="dom" />
/**
 * The owner's levers: tabs for synonyms, curations, answers (pins and the self-check) and
 * suggested fixes, with undo of changes to synonyms and curations.
 */
import { useState } from "preact/hooks";
import { CurationsTab } from "./CurationsTab.tsx";
import { AnswersTab } from "./AnswersTab.tsx";
import {
  type AnswerPinDraft,
  type CurationDraft,
  fieldMessage,
  leverQueryKey,
  type Limits,
  type PinWarning,
  putList,
  type SelfCheckRun,
  type Suggestion,
  type SynonymDraft,
} from "./levers_api.ts";
import { SuggestionsTab } from "./SuggestionsTab.tsx";
import { SynonymsTab } from "./SynonymsTab.tsx";
import { Panel, Status } from "./ui.tsx";
import { useStatus } from "./use_status.ts";

type Tab = "synonyms" | "curations" | "answers" | "suggestions";
const TABS: [Tab, string][] = [
  ["synonyms", "Synonyms"],
  ["curations", "Curations"],
  ["answers", "Answers"],
  ["suggestions", "Suggestions"],
];

type Change = { kind: "synonyms"; before: SynonymDraft[] } | {
  kind: "curations";
  before: CurationDraft[];
};

export function LeversPanel(
  p: {
    siteId: string;
    synonyms: SynonymDraft[];
    curations: CurationDraft[];
    warnings: PinWarning[];
    limits: Limits;
    answers?: AnswerPinDraft[];
    runs?: SelfCheckRun[];
  },
) {
  const [tab, setTab] = useState<Tab>("synonyms");
  const [synonyms, setSynonyms] = useState(p.synonyms);
  const [curations, setCurations] = useState(p.curations);
  const [warnings, setWarnings] = useState(p.warnings);
  const [answers, setAnswers] = useState(p.answers ?? []);
  const [runs, setRuns] = useState(p.runs ?? []);
  const [history, setHistory] = useState<Change[]>([]);
  const [status, setStatus] = useStatus();

  /** Stores a list; `undoing` leaves the history as it is. */
  const store = async (change: Change, next: SynonymDraft[] | CurationDraft[], undoing = false) => {
    setStatus({ kind: "busy", text: "Saving…" });
    try {
      const r = change.kind === "synonyms"
        ? await putList(p.siteId, "synonyms", next as SynonymDraft[])
        : await putList(p.siteId, "curations", next as CurationDraft[]);
      if (r.synonyms) setSynonyms(r.synonyms);
      if (r.curations) setCurations(r.curations);
      if (r.warnings) setWarnings(r.warnings);
      if (!undoing) setHistory((h) => [...h, change]);
      setStatus({ kind: "ok", text: undoing ? "Undone." : "Saved: searches show it now." });
      return true;
    } catch (e) {
      // Another entry the refusal names is named by its query.
      const name = (kind: string, i: number) =>
        kind === change.kind ? (next[i] as { query?: string } | undefined)?.query : undefined;
      setStatus({ kind: "error", text: fieldMessage(e, name) });
      return false;
    }
  };
  const saveSynonyms = (next: SynonymDraft[]) =>
    store({ kind: "synonyms", before: synonyms }, next);
  const saveCurations = (next: CurationDraft[]) =>
    store({ kind: "curations", before: curations }, next);
  const undo = async () => {
    const last = history.at(-1);
    if (last && (await store(last, last.before, true))) setHistory((h) => h.slice(0, -1));
  };
  /** A suggested pin joins the curation of its query where there is one, first among its pins. */
  const apply = (s: Suggestion) => {
    if (s.kind === "synonym") return saveSynonyms([...synonyms, s.apply]);
    const pin = s.apply;
    const at = curations.findIndex((c) =>
      c.match === pin.match && leverQueryKey(c.query) === leverQueryKey(pin.query)
    );
    if (at < 0) return saveCurations([...curations, pin]);
    return saveCurations(curations.map((c, i) =>
      i === at
        ? {
          ...c,
          pin: [...new Set([...pin.pin, ...c.pin])].slice(0, p.limits.pins),
          hide: c.hide.filter((u) => !pin.pin.includes(u)),
        }
        : c
    ));
  };
  const open = (id: Tab) => {
    setTab(id);
    setStatus(null); // what was said of the last tab's change is not about this one
  };

  return (
    <Panel
      id="levers"
      title="Search tuning"
      wide
      actions={
        <button type="button" class="button small" disabled={!history.length} onClick={undo}>
          Undo last change
        </button>
      }
    >
      <div role="tablist" class="tabs" aria-label="Search tuning">
        {TABS.map(([id, label]) => (
          <button
            type="button"
            role="tab"
            id={`levers-tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`levers-${id}`}
            class={tab === id ? "tab selected" : "tab"}
            onClick={() => open(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <Status value={status} />
      <div role="tabpanel" id={`levers-${tab}`} aria-labelledby={`levers-tab-${tab}`}>
        {tab === "synonyms"
          ? <SynonymsTab siteId={p.siteId} list={synonyms} limits={p.limits} save={saveSynonyms} />
          : tab === "answers"
          ? (
            <AnswersTab
              siteId={p.siteId}
              list={answers}
              runs={runs}
              limits={p.limits}
              setList={setAnswers}
              setRuns={setRuns}
            />
          )
          : tab === "curations"
          ? (
            <CurationsTab
              siteId={p.siteId}
              list={curations}
              warnings={warnings}
              limits={p.limits}
              save={saveCurations}
            />
          )
          : (
            <SuggestionsTab
              siteId={p.siteId}
              synonyms={synonyms}
              curations={curations}
              apply={apply}
            />
          )}
      </div>
    </Panel>
  );
}
