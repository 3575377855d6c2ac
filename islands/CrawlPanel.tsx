/// <reference lib="dom" />
/**
 * The crawl part of the Content panel (not an island of its own): the crawl settings
 * form, each field checked with a message beside it; the running crawl's true progress
 * (pages done of the pages it may store); and its failed and skipped URLs with reasons,
 * a page at a time.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, failure, fmt, Status, type StatusValue } from "./ui.tsx";
import type { CrawlJobJson } from "../lib/wire_types.ts";

/** What the form starts from: the last crawl's URL and page cap, the site's patterns and schedule. */
export interface CrawlSettings {
  url: string;
  maxPages: number | null;
  include: string[];
  exclude: string[];
  recrawl: "daily" | "weekly" | null;
  /** The plan's most pages. */
  planMaxPages: number;
}

interface UrlItem {
  url: string;
  reason: string;
}

type Field = "url" | "maxPages" | "include" | "exclude" | "recrawl";

const RUNNING = new Set(["queued", "running"]);
const POLL_MS = 500;
const LIST_PAGE = 50;

/** The reasons an owner reads, in words. */
const REASONS: Record<string, string> = {
  robots: "robots.txt disallows it",
  noindex: "marked noindex",
  canonical: "its canonical URL is indexed instead",
  not_html: "not an HTML page",
  too_large: "too large to store",
  redirect_limit: "too many redirects",
  blocked_address: "points to a private address",
  off_site: "on another site",
  page_limit: "over the page limit",
  timeout: "timed out",
  excluded: "excluded by a pattern",
  not_included: "not matched by the include patterns",
  invalid_url: "not a valid URL, or too long",
  duplicate: "the same page as another URL",
  fetch_error: "could not be fetched",
  not_a_sitemap: "not a sitemap",
};
const reasonText = (r: string) =>
  REASONS[r] ?? (r.startsWith("http_") ? `HTTP ${r.slice(5)}` : r.replaceAll("_", " "));

const lines = (s: string) => s.split("\n").map((x) => x.trim()).filter(Boolean);

const FIELD_NAMES: Record<Field, string> = {
  url: "This URL",
  maxPages: "Max pages",
  include: "The include patterns",
  exclude: "The exclude patterns",
  recrawl: "Re-crawl",
};

/** The field a server message is about (crawl messages start with the parameter's name), and the message in words. */
function fieldOf(message: string): [Field, string] | null {
  const m = /^(url|maxPages|include|exclude|recrawl)('s)?\b/.exec(message);
  if (!m) return null;
  const field = m[1] as Field;
  const name = m[2] ? `${FIELD_NAMES[field]}'s` : FIELD_NAMES[field];
  return [field, name + message.slice(m[0].length)];
}

/** Checks the form as the API will, so most mistakes are explained before a request. */
function check(v: { url: string; maxPages: string }, planMax: number) {
  const errors: Partial<Record<Field, string>> = {};
  const u = URL.parse(v.url.trim());
  if (!v.url.trim()) errors.url = "Enter your site's sitemap or home page URL.";
  else if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) {
    errors.url = "Enter a full URL starting with https:// (or http://).";
  }
  const n = v.maxPages.trim();
  if (n && (!/^\d+$/.test(n) || Number(n) < 1)) {
    errors.maxPages =
      "Max pages must be a whole number of at least 1, or empty for the plan's limit.";
  } else if (n && Number(n) > planMax) {
    errors.maxPages = `Your plan holds at most ${fmt(planMax)} pages: the crawl stops there.`;
  }
  return errors;
}

/** One list of a finished or running job: failed or skipped URLs with their reasons. */
function UrlList(p: { siteId: string; jobId: string; kind: "failed" | "skipped"; count: number }) {
  const [items, setItems] = useState<UrlItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<StatusValue>(null);
  const load = async (from: string | null) => {
    try {
      const q = from ? `&cursor=${encodeURIComponent(from)}` : "";
      const r = await requestJson<{ urls: UrlItem[]; cursor: string | null }>(
        adminPath(
          p.siteId,
          `/crawl/${encodeURIComponent(p.jobId)}/urls?kind=${p.kind}&limit=${LIST_PAGE}${q}`,
        ),
      );
      setItems(from ? [...items, ...r.urls] : r.urls);
      setCursor(r.cursor);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  useEffect(() => {
    setItems([]);
    setCursor(null);
    if (open) load(null);
  }, [p.jobId]);
  const toggle = () => {
    if (!open && !items.length) load(null);
    setOpen(!open);
  };
  if (!p.count) return null;
  return (
    <div class="crawl-list" data-crawl-list={p.kind}>
      <button type="button" class="button small" aria-expanded={open} onClick={toggle}>
        {open ? "Hide" : "Show"} {p.kind} URLs ({fmt(p.count)})
      </button>
      <Status value={status} />
      {open
        ? (
          <>
            <ul class="rows" aria-label={`${p.kind} URLs`}>
              {items.map((x) => (
                <li>
                  <span class="row-main">
                    <span class="path">{x.url}</span>
                    <span class={`tag ${p.kind === "failed" ? "error" : ""}`}>
                      {reasonText(x.reason)}
                    </span>
                  </span>
                </li>
              ))}
            </ul>
            {cursor
              ? (
                <button type="button" class="button small" onClick={() => load(cursor)}>
                  Load {LIST_PAGE} more
                </button>
              )
              : null}
          </>
        )
        : null}
    </div>
  );
}

/** The crawl settings, the last or running crawl's progress, and its URL lists. */
export function CrawlPanel(
  p: {
    siteId: string;
    last: CrawlJobJson | null;
    settings: CrawlSettings;
    /** Called while a crawl runs (the page list refreshes) and when it ends. */
    onProgress: (running: boolean) => void;
  },
) {
  const s = p.settings;
  const [url, setUrl] = useState(s.url);
  const [maxPages, setMaxPages] = useState(s.maxPages ? String(s.maxPages) : "");
  const [include, setInclude] = useState(s.include.join("\n"));
  const [exclude, setExclude] = useState(s.exclude.join("\n"));
  const [recrawl, setRecrawl] = useState(s.recrawl ?? "");
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [job, setJob] = useState<CrawlJobJson | null>(p.last);
  const [status, setStatus] = useState<StatusValue>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const polls = useRef(0);
  const follow = (id: string) => {
    timer.current = setTimeout(async () => {
      try {
        const j = await requestJson<CrawlJobJson>(
          adminPath(p.siteId, `/crawl/${encodeURIComponent(id)}`),
        );
        setJob(j);
        if (RUNNING.has(j.status)) {
          // The page list follows the crawl every few polls.
          if (++polls.current % 4 === 0) p.onProgress(true);
          return follow(id);
        }
        p.onProgress(false);
      } catch (e) {
        setStatus({ kind: "error", text: failure(e) });
      }
    }, POLL_MS);
  };
  useEffect(() => {
    if (p.last && RUNNING.has(p.last.status)) follow(p.last.id);
    return () => clearTimeout(timer.current);
  }, []);

  /** Saves patterns and schedule; false (with the messages shown) when refused. */
  const saveSettings = async (): Promise<boolean> => {
    try {
      await requestJson(
        adminPath(p.siteId),
        jsonBody("PATCH", {
          include: lines(include),
          exclude: lines(exclude),
          recrawl: recrawl || null,
        }),
      );
      return true;
    } catch (e) {
      const field = fieldOf(failure(e));
      if (field) setErrors({ [field[0]]: field[1] });
      setStatus({
        kind: "error",
        text: field ? "Settings not saved: see the field marked above." : failure(e),
      });
      return false;
    }
  };

  const submit = async (e: Event, crawl: boolean) => {
    e.preventDefault();
    setStatus(null);
    const found = crawl ? check({ url, maxPages }, s.planMaxPages) : {};
    // Over the plan's limit is a note, not a refusal: the crawl stops at the plan's limit.
    const blocking = Object.keys(found).filter((k) =>
      !(k === "maxPages" && /^\d+$/.test(maxPages.trim()))
    );
    setErrors(found);
    if (blocking.length) {
      setStatus({ kind: "error", text: "Check the fields marked below." });
      return;
    }
    setStatus({ kind: "busy", text: crawl ? "Starting the crawl…" : "Saving…" });
    if (!(await saveSettings())) return;
    if (!crawl) return setStatus({ kind: "ok", text: "Crawl settings saved." });
    try {
      const n = maxPages.trim();
      const r = await requestJson<{ job: CrawlJobJson }>(
        adminPath(p.siteId, "/crawl"),
        jsonBody("POST", { url: url.trim(), ...(n ? { maxPages: Number(n) } : {}) }),
      );
      setJob(r.job);
      setStatus({ kind: "ok", text: "Crawl started." });
      polls.current = 0;
      follow(r.job.id);
    } catch (err) {
      const field = fieldOf(failure(err));
      if (field) setErrors({ ...found, [field[0]]: field[1] });
      setStatus({
        kind: "error",
        text: field ? "Not started: see the field marked above." : failure(err),
      });
    }
  };

  const c = job?.counts ?? {};
  const running = job ? RUNNING.has(job.status) : false;
  const progress = job?.progress ?? { done: 0, total: 0 };
  const stored = (c.indexed ?? 0) + (c.unchanged ?? 0);
  const fieldError = (f: Field) =>
    errors[f] ? <p class="field-error status error" id={`crawl-${f}-error`}>{errors[f]}</p> : null;
  const described = (f: Field, help: string) => errors[f] ? `crawl-${f}-error ${help}` : help;
  return (
    <div>
      <h3>Crawl</h3>
      <form class="crawl-form" onSubmit={(e) => submit(e, true)} noValidate>
        <label for="crawl-url">Sitemap or start page URL</label>
        <input
          id="crawl-url"
          name="url"
          type="url"
          placeholder="https://www.example.com/sitemap.xml"
          value={url}
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={described("url", "crawl-url-help")}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
        {fieldError("url")}
        <p id="crawl-url-help" class="help">
          A sitemap lists your pages; a home page makes the crawler follow your links.
        </p>
        <label for="crawl-max">Max pages</label>
        <input
          id="crawl-max"
          name="maxPages"
          inputMode="numeric"
          placeholder={`up to ${fmt(s.planMaxPages)} (your plan)`}
          value={maxPages}
          aria-invalid={errors.maxPages ? true : undefined}
          aria-describedby={described("maxPages", "crawl-max-help")}
          onInput={(e) => setMaxPages((e.target as HTMLInputElement).value)}
        />
        {fieldError("maxPages")}
        <p id="crawl-max-help" class="help">Empty: as many as your plan holds.</p>
        <label for="crawl-include">Only crawl URLs matching</label>
        <textarea
          id="crawl-include"
          name="include"
          rows={2}
          placeholder="/docs/**"
          value={include}
          aria-invalid={errors.include ? true : undefined}
          aria-describedby={described("include", "crawl-patterns-help")}
          onInput={(e) => setInclude((e.target as HTMLTextAreaElement).value)}
        />
        {fieldError("include")}
        <label for="crawl-exclude">Never crawl URLs matching</label>
        <textarea
          id="crawl-exclude"
          name="exclude"
          rows={2}
          placeholder="/blog/tag/**"
          value={exclude}
          aria-invalid={errors.exclude ? true : undefined}
          aria-describedby={described("exclude", "crawl-patterns-help")}
          onInput={(e) => setExclude((e.target as HTMLTextAreaElement).value)}
        />
        {fieldError("exclude")}
        <p id="crawl-patterns-help" class="help">
          One pattern per line: <code>*</code> matches within a folder, <code>**</code>{" "}
          across folders (<code>/docs/**</code>), or a full URL pattern.
        </p>
        <label for="crawl-recrawl">Re-crawl</label>
        <select
          id="crawl-recrawl"
          name="recrawl"
          value={recrawl}
          aria-describedby="crawl-recrawl-help"
          onChange={(e) => setRecrawl((e.target as HTMLSelectElement).value)}
        >
          <option value="">Off</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
        </select>
        {fieldError("recrawl")}
        <p id="crawl-recrawl-help" class="help">Repeats your last crawl on this schedule.</p>
        <div class="inline">
          <button type="submit" class="button primary" disabled={running}>Crawl now</button>
          <button type="button" class="button" onClick={(e) => submit(e, false)}>
            Save settings
          </button>
        </div>
      </form>
      <Status value={status} />
      {job
        ? (
          <div class="crawl" data-crawl-status={job.status} aria-live="polite">
            <p>
              <strong>
                {running
                  ? "Crawling"
                  : job.status === "done"
                  ? "Crawl finished"
                  : `Crawl ${job.status}`}
              </strong>{" "}
              <span class="path">{job.url}</span>
            </p>
            <progress
              max={Math.max(progress.total, 1)}
              value={running ? progress.done : Math.max(progress.total, 1)}
              aria-label="Crawl progress"
            />
            <p data-crawl-progress>
              {fmt(progress.done)} of {fmt(progress.total)} pages done{running ? " so far" : ""} ·
              {" "}
              {fmt(stored)} stored
            </p>
            {job.error ? <p class="status error">{job.error}</p> : null}
            <p class="muted" data-crawl-counts>
              {fmt(c.indexed ?? 0)} new or changed · {fmt(c.unchanged ?? 0)} unchanged ·{" "}
              {fmt(c.removed ?? 0)} removed · {fmt(c.skipped ?? 0)} skipped · {fmt(c.failed ?? 0)}
              {" "}
              failed
            </p>
            <UrlList siteId={p.siteId} jobId={job.id} kind="failed" count={c.failed ?? 0} />
            <UrlList siteId={p.siteId} jobId={job.id} kind="skipped" count={c.skipped ?? 0} />
          </div>
        )
        : null}
    </div>
  );
}
