/// <reference lib="dom" />
/** The site's settings, each saved as soon as it changes, with a confirmation or the error. */
import { useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, failure, Panel, Status, type StatusValue } from "./ui.tsx";
import { LANGS } from "../widget/i18n/index.ts";

/** A language's own name ("Deutsch", "日本語"), for the visitor language list. */
const nameOf = (lang: string) =>
  new Intl.DisplayNames([lang], { type: "language" }).of(lang) ?? lang;

export interface Settings {
  aiSummaries: boolean;
  externalKnowledge: boolean;
  followups: boolean;
  allowedOrigins: string[];
  resultsPage: string;
  lang?: string | null;
}

const SWITCHES: [keyof Settings, string, string][] = [
  ["aiSummaries", "AI summaries", "Answer questions with a cited summary above the results."],
  [
    "externalKnowledge",
    "External Knowledge",
    "Let answers draw on general knowledge, marked as such.",
  ],
  ["followups", "Follow-up questions", "Visitors may ask follow-ups in the same conversation."],
];

export function SettingsForm(p: { siteId: string; settings: Settings; followupsOnPlan: boolean }) {
  const [saved, setSaved] = useState(p.settings);
  const [origins, setOrigins] = useState(p.settings.allowedOrigins.join("\n"));
  const [resultsPage, setResultsPage] = useState(p.settings.resultsPage);
  const [status, setStatus] = useState<StatusValue>(null);

  const save = async (patch: Partial<Settings>, what: string) => {
    const before = saved;
    setSaved({ ...saved, ...patch }); // shown at once; put back if the server refuses it
    setStatus({ kind: "busy", text: `Saving ${what}…` });
    try {
      const { site } = await requestJson<{ site: { settings: Settings } }>(
        adminPath(p.siteId),
        jsonBody("PATCH", patch),
      );
      setSaved(site.settings);
      setOrigins(site.settings.allowedOrigins.join("\n"));
      setResultsPage(site.settings.resultsPage);
      setStatus({ kind: "ok", text: `Saved: ${what}.` });
    } catch (e) {
      setSaved(before);
      setStatus({ kind: "error", text: `${what} not saved: ${failure(e)}` });
    }
  };

  return (
    <Panel id="settings" title="Settings">
      <form class="settings" onSubmit={(e) => e.preventDefault()}>
        {SWITCHES.map(([name, label, help]) => {
          const off = name === "followups" && !p.followupsOnPlan;
          return (
            <div class="switch">
              <input
                type="checkbox"
                id={`set-${name}`}
                name={name}
                checked={saved[name] as boolean}
                disabled={off}
                aria-describedby={`set-${name}-help`}
                onChange={(e) => save({ [name]: (e.target as HTMLInputElement).checked }, label)}
              />
              <label for={`set-${name}`}>{label}</label>
              <p id={`set-${name}-help`} class="help">{off ? "Needs a paid plan." : help}</p>
            </div>
          );
        })}
        <label for="set-origins">Allowed origins</label>
        <textarea
          id="set-origins"
          name="allowedOrigins"
          rows={3}
          placeholder="https://www.example.com"
          aria-describedby="set-origins-help"
          value={origins}
          onInput={(e) => setOrigins((e.target as HTMLTextAreaElement).value)}
          onChange={() =>
            save({ allowedOrigins: origins.split(/[\s,]+/).filter(Boolean) }, "allowed origins")}
        />
        <p id="set-origins-help" class="help">
          One per line. Empty: any site may use your public key. Saved when you leave the field.
        </p>
        <label for="set-results">Results page path</label>
        <input
          id="set-results"
          name="resultsPage"
          value={resultsPage}
          aria-describedby="set-results-help"
          onInput={(e) => setResultsPage((e.target as HTMLInputElement).value)}
          onChange={() => save({ resultsPage: resultsPage.trim() }, "results page")}
        />
        <p id="set-results-help" class="help">
          Where your site shows search results, e.g. /search-results.
        </p>
        <label for="set-lang">Visitor language</label>
        <select
          id="set-lang"
          name="lang"
          aria-describedby="set-lang-help"
          value={saved.lang ?? ""}
          onChange={(e) => {
            const lang = (e.target as HTMLSelectElement).value || null;
            save({ lang }, "visitor language");
          }}
        >
          <option value="">From each page (else English)</option>
          {LANGS.map((l) => <option key={l} value={l}>{nameOf(l)} ({l})</option>)}
        </select>
        <p id="set-lang-help" class="help">
          The language of the search bar, results page and answers' labels where your page's own
          <code>&lt;html lang&gt;</code> names none of the 14 we speak.
        </p>
      </form>
      <Status value={status} />
    </Panel>
  );
}
