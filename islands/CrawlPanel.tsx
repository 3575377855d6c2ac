/// <reference lib="dom" />
/**
 * The crawl part of the Content panel (not an island of its own): the crawl settings
 * form, each field checked with a message beside it; the running crawl's true progress
 * (pages done of the pages it may store; a failed crawl's bar never shows full); and its
 * failed and skipped URLs grouped by reason, each group saying in words what it means and
 * what to do, its URLs a page at a time.
 */
import { Slashed } from "./slashes.tsx";
import { useEffect, useRef, useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, failure, fmt, Status, type StatusValue } from "./ui.tsx";
import type { CrawlJobJson, SitemapWatchJson } from "../lib/wire_types.ts";
import { REFETCH_QUEUED_EVENT } from "./freshness_api.ts";
import { WatchLine } from "./WatchLine.tsx";

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
  duplicateOf?: string;
}

type Field = "url" | "maxPages" | "include" | "exclude" | "recrawl";

const RUNNING = new Set(["queued", "running"]);
const POLL_MS = 500;
const LIST_PAGE = 10;

/** A reason in words: a title, what it means, and what the owner can do. */
interface ReasonWords {
  title: string;
  means: string;
  todo?: string;
}

/** The reasons an owner reads, in words; a raw reason code is never shown. */
const REASONS: Record<string, ReasonWords> = {
  off_site: {
    title: "Links to other sites",
    means: "A crawl stays on the site it starts from, so these links were not followed.",
    todo: "To search one of those sites too, add it as a site of its own.",
  },
  robots: {
    title: "Disallowed by robots.txt",
    means: "Your robots.txt asks crawlers to keep out of these pages.",
    todo: "To index them, allow SiteSearchBot in robots.txt.",
  },
  noindex: {
    title: "Marked noindex",
    means: "These pages ask not to be indexed (a robots meta tag or X-Robots-Tag header).",
    todo: "Remove noindex from a page you want found.",
  },
  canonical: {
    title: "Indexed under their canonical URL",
    means: "Each names another page as its canonical URL; that page is indexed instead.",
  },
  duplicate: {
    title: "Same page as another URL",
    means: "Each shows the same content as a page stored under another URL, so it is stored once.",
  },
  not_html: {
    title: "Not web pages",
    means: "These are files such as PDFs or images, not HTML pages.",
    todo: "Upload documents you want found under Documents.",
  },
  redirect_limit: {
    title: "Too many redirects",
    means: "These URLs redirected more than 5 times (or in a loop).",
    todo: "Fix the redirects on your server.",
  },
  blocked_address: {
    title: "Private addresses",
    means: "These point to a private or internal network address, which is never crawled.",
  },
  page_limit: {
    title: "Over the page limit",
    means: "The crawl had stored as many pages as it may.",
    todo: "Raise Max pages, or upgrade your plan for more pages.",
  },
  excluded: {
    title: "Excluded by your patterns",
    means: 'These match one of your "Never crawl" patterns.',
  },
  not_included: {
    title: "Outside your include patterns",
    means: 'These match none of your "Only crawl" patterns.',
  },
  invalid_url: {
    title: "Unusable URLs",
    means: "These are not web addresses, or are too long to store.",
  },
  discovery_limit: {
    title: "Too many links",
    means: "The crawl met more URLs than it keeps for the pages it may store.",
    todo: "Use include or exclude patterns to focus the crawl.",
  },
  sitemap_limit: {
    title: "Too many sitemaps",
    means: "A crawl reads at most 50 sitemaps.",
  },
  timeout: {
    title: "Timed out",
    means: "The server took too long to answer.",
    todo: "Check that your server is up, then crawl again.",
  },
  fetch_error: {
    title: "Could not fetch",
    means:
      "The connection to the server failed (or its certificate), or its answer was broken: cut short, or with a malformed length.",
    todo:
      "Check that the address is right and the server is reachable; a broken answer is fixed on the server.",
  },
  not_a_sitemap: {
    title: "Not a sitemap",
    means: "These URLs were read as sitemaps but hold no sitemap.",
    todo: "Check the sitemap's address.",
  },
  too_large: {
    title: "Too large",
    means: "These pages are over 5 MB, or too large to store.",
  },
};

/** A reason in words, HTTP statuses and page reading failures included. */
function reasonWords(r: string): ReasonWords {
  if (REASONS[r]) return REASONS[r];
  const status = /^http_(\d{3})$/.exec(r)?.[1];
  if (status === "404" || status === "410") {
    return {
      title: "Not found",
      means: `The server answered that these pages do not exist (HTTP ${status}).`,
      todo: "Fix or remove the links to them, or take them out of your sitemap.",
    };
  }
  if (status === "401" || status === "403") {
    return {
      title: "Access refused",
      means: `The server refused the crawler (HTTP ${status}).`,
      todo: "Let SiteSearchBot read these pages, or leave them out.",
    };
  }
  if (status?.startsWith("5")) {
    return {
      title: "Server errors",
      means: `The server failed to answer (HTTP ${status}).`,
      todo: "Check your server, then crawl again.",
    };
  }
  if (status) {
    return { title: `Server answered ${status}`, means: `The server answered HTTP ${status}.` };
  }
  if (r.startsWith("parse_")) {
    return {
      title: "Could not be read",
      means: "These pages could not be read as HTML in time.",
      todo: "Crawl again; if it stays, the pages may be malformed or very large.",
    };
  }
  return { title: "Not indexed", means: "These URLs were not indexed." };
}

/** Whether a reason is a failure (the fetch gave no page) rather than a choice. */
const isFailure = (r: string) =>
  r.startsWith("http_") || r.startsWith("parse_") ||
  ["timeout", "fetch_error", "not_a_sitemap", "too_large"].includes(r);

/** A job's error in plain words: reason codes in it are put in words. */
const errorWords = (e: string) =>
  e.replace(
    /\b(?:http_\d{3}|[a-z]+(?:_[a-z]+)+)\b/g,
    (code) =>
      code in REASONS || code.startsWith("http_") || code.startsWith("parse_")
        ? reasonWords(code).means.replace(/\.$/, "").replace(/^These (pages|URLs) /, "it ")
        : code,
  );

/** Adds https:// to a URL typed without a scheme ("example.com/docs"). */
const withScheme = (u: string) =>
  /^[a-z][a-z0-9+.-]*:/i.test(u) || !/^[^\s/:]+\.[^\s/:]+(?:[:/]|$)/.test(u) ? u : `https://${u}`;

/** Moves focus to a field with a message, so the message beside it is read. */
const focusField = (f: Field) =>
  (document.getElementById(f === "maxPages" ? "crawl-max" : `crawl-${f}`) as HTMLElement | null)
    ?.focus();

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

const pages = (n: number) => `${fmt(n)} ${n === 1 ? "page" : "pages"}`;

/** What started a job other than the owner's crawl, in words; null for a crawl. */
function triggerWords(job: CrawlJobJson): string | null {
  const n = job.urls ?? job.progress?.total ?? 0;
  if (job.trigger === "refetch") return `Re-fetch of ${pages(n)}`;
  if (job.trigger === "indexnow") return `IndexNow ping: ${pages(n)}`;
  if (job.trigger === "watch") return "Sitemap watch";
  if (job.trigger === "schedule") return "Scheduled crawl";
  return null;
}

/** A job's heading: what it is and where it stands. */
function jobTitle(job: CrawlJobJson, running: boolean): string {
  const what = triggerWords(job);
  if (!what) {
    return running ? "Crawling" : job.status === "done" ? "Crawl finished" : `Crawl ${job.status}`;
  }
  return `${what}${running ? " running" : job.status === "done" ? " finished" : `: ${job.status}`}`;
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

/** One reason's URLs of a job: a count, what it means and what to do, its URLs a page at a time. */
function ReasonGroup(
  p: { siteId: string; jobId: string; kind: "failed" | "skipped"; reason: string; count: number },
) {
  const [items, setItems] = useState<UrlItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<StatusValue>(null);
  const words = reasonWords(p.reason);
  const load = async (from: string | null) => {
    try {
      const q = from ? `&cursor=${encodeURIComponent(from)}` : "";
      const r = await requestJson<{ urls: UrlItem[]; cursor: string | null }>(
        adminPath(
          p.siteId,
          `/crawl/${encodeURIComponent(p.jobId)}/urls?kind=${p.kind}&reason=${
            encodeURIComponent(p.reason)
          }&limit=${LIST_PAGE}${q}`,
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
  }, [p.jobId, p.count]);
  const toggle = () => {
    if (!open && !items.length) load(null);
    setOpen(!open);
  };
  return (
    <li class="crawl-group" data-crawl-group={p.kind}>
      <p>
        <strong>{words.title}</strong>{" "}
        <span class={`tag ${p.kind === "failed" ? "error" : ""}`}>{fmt(p.count)}</span>
      </p>
      <p class="help">{words.means}{words.todo ? ` ${words.todo}` : ""}</p>
      <button type="button" class="button small" aria-expanded={open} onClick={toggle}>
        {open ? "Hide URLs" : "Show URLs"}
      </button>
      <Status value={status} />
      {open
        ? (
          <>
            <ul class="rows" aria-label={`${words.title}: URLs`}>
              {items.map((x) => (
                <li>
                  <span class="row-main">
                    <span class="path">
                      <Slashed text={x.url} />
                    </span>
                    {x.duplicateOf ? <span class="muted">same as {x.duplicateOf}</span> : null}
                  </span>
                </li>
              ))}
            </ul>
            {cursor
              ? (
                <button type="button" class="button small" onClick={() => load(cursor)}>
                  Show more
                </button>
              )
              : null}
          </>
        )
        : null}
    </li>
  );
}

/** A job's failed or skipped URLs grouped by reason, the largest group first. */
function ReasonGroups(
  p: { siteId: string; job: CrawlJobJson; kind: "failed" | "skipped" },
) {
  const groups = Object.entries(p.job.reasons ?? {})
    .filter(([r, n]) => n > 0 && isFailure(r) === (p.kind === "failed"))
    .sort((a, b) => b[1] - a[1]);
  if (!groups.length) return null;
  return (
    <div class="crawl-list" data-crawl-list={p.kind}>
      <h4>{p.kind === "failed" ? "Failed" : "Skipped"}</h4>
      <ul class="rows">
        {groups.map(([reason, count]) => (
          <ReasonGroup
            key={reason}
            siteId={p.siteId}
            jobId={p.job.id}
            kind={p.kind}
            reason={reason}
            count={count}
          />
        ))}
      </ul>
    </div>
  );
}

/** The crawl settings, the last or running crawl's progress, and its URL lists. */
export function CrawlPanel(
  p: {
    siteId: string;
    last: CrawlJobJson | null;
    settings: CrawlSettings;
    /** Shows the sitemap watch and follows re-fetches (not in the first steps: no pages yet). */
    freshness?: boolean;
    /** The sitemap watch; when not given, read with the crawl list once the panel is up. */
    watch?: SitemapWatchJson | null;
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
  /** Said beside the URL field when https:// was added to what was typed. */
  const [schemeNote, setSchemeNote] = useState(false);
  const [job, setJob] = useState<CrawlJobJson | null>(p.last);
  const [status, setStatus] = useState<StatusValue>(null);
  const [watch, setWatch] = useState<SitemapWatchJson | null>(p.watch ?? null);
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
  /** Reads the latest job and the watch; follows the job if it runs (a re-fetch just queued). */
  const refresh = async (followLatest: boolean) => {
    try {
      const r = await requestJson<{ jobs: CrawlJobJson[]; watch?: SitemapWatchJson }>(
        adminPath(p.siteId, "/crawl"),
      );
      if (r.watch) setWatch(r.watch);
      const latest = r.jobs[0];
      if (!followLatest || !latest) return;
      clearTimeout(timer.current);
      setJob(latest);
      polls.current = 0;
      if (RUNNING.has(latest.status)) follow(latest.id);
      else p.onProgress(false);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  useEffect(() => {
    if (p.last && RUNNING.has(p.last.status)) follow(p.last.id);
    if (p.freshness && p.watch === undefined) refresh(false);
    // A re-fetch queued elsewhere on the page (the pages list, the freshness panel) is a job here.
    const queued = () => void refresh(true);
    if (p.freshness) addEventListener(REFETCH_QUEUED_EVENT, queued);
    return () => {
      clearTimeout(timer.current);
      removeEventListener(REFETCH_QUEUED_EVENT, queued);
    };
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
      if (field) focusField(field[0]);
      setStatus({
        kind: "error",
        text: field ? "Settings not saved: see the message beside the field." : failure(e),
      });
      return false;
    }
  };

  const submit = async (e: Event, crawl: boolean) => {
    e.preventDefault();
    setStatus(null);
    const typed = url.trim();
    const full = withScheme(typed);
    if (full !== typed) {
      setUrl(full);
      setSchemeNote(true);
    }
    const found = crawl ? check({ url: full, maxPages }, s.planMaxPages) : {};
    // Over the plan's limit is a note, not a refusal: the crawl stops at the plan's limit.
    const blocking = Object.keys(found).filter((k) =>
      !(k === "maxPages" && /^\d+$/.test(maxPages.trim()))
    );
    setErrors(found);
    if (blocking.length) {
      focusField(blocking[0] as Field);
      setStatus({ kind: "error", text: "Not started: see the message beside the field." });
      return;
    }
    setStatus({ kind: "busy", text: crawl ? "Starting the crawl…" : "Saving…" });
    if (!(await saveSettings())) return;
    if (!crawl) return setStatus({ kind: "ok", text: "Crawl settings saved." });
    try {
      const n = maxPages.trim();
      const r = await requestJson<{ job: CrawlJobJson }>(
        adminPath(p.siteId, "/crawl"),
        jsonBody("POST", { url: full, ...(n ? { maxPages: Number(n) } : {}) }),
      );
      setJob(r.job);
      setStatus({ kind: "ok", text: "Crawl started." });
      polls.current = 0;
      follow(r.job.id);
    } catch (err) {
      const field = fieldOf(failure(err));
      if (field) setErrors({ ...found, [field[0]]: field[1] });
      if (field) focusField(field[0]);
      setStatus({
        kind: "error",
        text: field ? "Not started: see the message beside the field." : failure(err),
      });
    }
  };

  const c = job?.counts ?? {};
  const failed = job?.status === "failed" || job?.status === "interrupted";
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
          onInput={(e) => {
            setUrl((e.target as HTMLInputElement).value);
            setSchemeNote(false);
          }}
        />
        {fieldError("url")}
        {schemeNote && !errors.url
          ? (
            <p class="help" data-crawl-scheme>
              https:// was added to the address. Type http:// yourself for a site without HTTPS.
            </p>
          )
          : null}
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
      {p.freshness && watch ? <WatchLine watch={watch} /> : null}
      {job
        ? (
          <div class="crawl" data-crawl-status={job.status} aria-live="polite">
            <p>
              <strong data-crawl-title>{jobTitle(job, running)}</strong>{" "}
              <span class="path">
                <Slashed text={job.url} />
              </span>
            </p>
            {/* A crawl that failed or stopped shows how far it got, never a full bar. */}
            <progress
              class={failed ? "failed" : undefined}
              max={Math.max(progress.total, 1)}
              value={running || failed ? progress.done : Math.max(progress.total, 1)}
              aria-label={failed ? "Crawl progress (stopped)" : "Crawl progress"}
            />
            <p data-crawl-progress>
              {fmt(progress.done)} of {fmt(progress.total)} pages done{running ? " so far" : ""} ·
              {" "}
              {fmt(stored)} stored
            </p>
            {job.error ? <p class="status error">{errorWords(job.error)}</p> : null}
            <p class="muted" data-crawl-counts>
              {fmt(c.indexed ?? 0)} new or changed · {fmt(c.unchanged ?? 0)} unchanged ·{" "}
              {fmt(c.removed ?? 0)} removed · {fmt(c.skipped ?? 0)} skipped · {fmt(c.failed ?? 0)}
              {" "}
              failed
            </p>
            <ReasonGroups siteId={p.siteId} job={job} kind="failed" />
            <ReasonGroups siteId={p.siteId} job={job} kind="skipped" />
          </div>
        )
        : null}
    </div>
  );
}
