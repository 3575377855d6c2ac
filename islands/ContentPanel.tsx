/// <reference lib="dom" />
/**
 * The site's content: pages (search, delete), a crawl with live progress, documents. Lists grow
 * with "Show more" rather than scrolling inside the page, so no row is ever cut off.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { requestJson } from "./api.ts";
import { CrawlPanel, type CrawlSettings } from "./CrawlPanel.tsx";
import type { CrawlJobJson, SitemapWatchJson } from "../lib/wire_types.ts";
import {
  followStatus,
  queuedWords,
  readUrlStatus,
  refetch,
  refetchFailure,
} from "./freshness_api.ts";
import { ago } from "./when.ts";
import { Slashed } from "./slashes.tsx";
import { adminPath, failure, fmt, Panel, Status, type StatusValue } from "./ui.tsx";

/** Said when a crawl elsewhere on the page (the first-run steps) changed the site's pages. */
export const PAGES_CHANGED_EVENT = "sitesearch:pages-changed";

/** Rows shown at first, and added by each "Show more". */
export const ROWS_STEP = 20;

interface PageRow {
  url: string;
  title: string;
  updatedAt?: string;
}

interface DocRow {
  id: string;
  title: string;
  type: string;
  bytes: number;
}

const TYPES: Record<string, string> = {
  pdf: "application/pdf",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  htm: "text/html",
};

function Pages(
  p: { siteId: string; pages: PageRow[]; cursor: string | null; total: number; reload: number },
) {
  const [pages, setPages] = useState(p.pages);
  const [cursor, setCursor] = useState(p.cursor);
  const [total, setTotal] = useState(p.total);
  const [filter, setFilter] = useState("");
  const [confirm, setConfirm] = useState<string | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);
  const [limit, setLimit] = useState(ROWS_STEP);
  /** What a row's re-fetch came to, by URL: queued, then searchable or why not. */
  const [notes, setNotes] = useState<Record<string, string>>({});
  const note = (url: string, text: string) => setNotes((n) => ({ ...n, [url]: text }));
  const load = async (more: boolean) => {
    try {
      const q = more && cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const r = await requestJson<{ pages: PageRow[]; cursor: string | null }>(
        adminPath(p.siteId, `/pages?limit=100${q}`),
      );
      setPages(more ? [...pages, ...r.pages] : r.pages);
      setCursor(r.cursor);
      // The list holds a page of them; the count is the site's own.
      if (!more) {
        const u = await requestJson<{ pages: { count: number } }>(adminPath(p.siteId, "/usage"));
        setTotal(u.pages.count);
      }
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  useEffect(() => void (p.reload && load(false)), [p.reload]);
  useEffect(() => {
    const changed = () => void load(false);
    addEventListener(PAGES_CHANGED_EVENT, changed);
    return () => removeEventListener(PAGES_CHANGED_EVENT, changed);
  }, []);
  const remove = async (url: string) => {
    setConfirm(null);
    try {
      await requestJson(adminPath(p.siteId, `/pages?url=${encodeURIComponent(url)}`), {
        method: "DELETE",
      });
      setPages(pages.filter((x) => x.url !== url));
      setTotal(Math.max(0, total - 1));
      setStatus({ kind: "ok", text: `Deleted ${url}.` });
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  const refetchRow = async (url: string) => {
    note(url, "Queuing…");
    try {
      // The fetch before this one, so the follow can tell when the new one has landed.
      const before = (await readUrlStatus(p.siteId, url).catch(() => null))?.lastFetched ?? null;
      const r = await refetch(p.siteId, [url]);
      setStatus({ kind: "ok", text: queuedWords(r.queued) });
      note(url, "Queued: fetching…");
      const now = await followStatus({ siteId: p.siteId, url, before });
      const fetched = now.lastFetched ? `fetched ${ago(now.lastFetched)}` : "not fetched yet";
      note(url, now.searchable ? `Searchable, ${fetched}.` : `Not searchable: ${now.detail}`);
      if (now.lastFetched !== before) void load(false);
    } catch (e) {
      note(url, "");
      setStatus({ kind: "error", text: refetchFailure(e) });
    }
  };
  const f = filter.trim().toLowerCase();
  const matching = f
    ? pages.filter((x) => (x.title + " " + x.url).toLowerCase().includes(f))
    : pages;
  const shown = matching.slice(0, limit);
  // More rows are held here, or (unfiltered) the server has more to send.
  const more = matching.length > limit || (!f && cursor !== null);
  const showMore = async () => {
    if (!f && cursor && pages.length < limit + ROWS_STEP) await load(true);
    setLimit(limit + ROWS_STEP);
  };
  return (
    <div>
      <h3>
        Pages <span class="muted" data-pages-count>({fmt(Math.max(total, pages.length))})</span>
      </h3>
      <label class="sr-only" for="pages-filter">Filter pages</label>
      <input
        id="pages-filter"
        type="search"
        placeholder="Filter by title or path"
        value={filter}
        onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
      />
      <Status value={status} />
      <ul class="rows" aria-label="Pages">
        {shown.map((x) => (
          <li>
            <span class="row-main">
              <strong>{x.title}</strong>{" "}
              <span class="path" dir="ltr">
                <Slashed text={x.url} />
              </span>
              {notes[x.url] ? <span class="row-note" data-refetch-note>{notes[x.url]}</span> : null}
            </span>
            {confirm === x.url
              ? (
                <span class="row-actions">
                  <button type="button" class="button small danger" onClick={() => remove(x.url)}>
                    Delete
                  </button>
                  <button type="button" class="button small" onClick={() => setConfirm(null)}>
                    Keep
                  </button>
                </span>
              )
              : (
                <span class="row-actions stacked">
                  <button
                    type="button"
                    class="button small"
                    aria-label={`Re-fetch ${x.url}`}
                    onClick={() => refetchRow(x.url)}
                  >
                    Re-fetch
                  </button>
                  <button
                    type="button"
                    class="button small"
                    aria-label={`Delete ${x.url}`}
                    onClick={() => setConfirm(x.url)}
                  >
                    Delete…
                  </button>
                </span>
              )}
          </li>
        ))}
        {shown.length === 0
          ? (
            <li class="muted">
              {pages.length ? "No page matches." : "No pages yet: crawl your site."}
            </li>
          )
          : null}
      </ul>
      {more
        ? (
          <p class="more">
            <button type="button" class="button small" data-show-more onClick={showMore}>
              Show more
            </button>{" "}
            <span class="muted">
              {fmt(shown.length)} of {fmt(f ? matching.length : Math.max(total, pages.length))}{" "}
              shown
            </span>
          </p>
        )
        : null}
    </div>
  );
}

function Documents(p: { siteId: string; documents: DocRow[] }) {
  const [docs, setDocs] = useState(p.documents);
  const [limit, setLimit] = useState(ROWS_STEP);
  const [status, setStatus] = useState<StatusValue>(null);
  const file = useRef<HTMLInputElement>(null);
  const upload = async (e: Event) => {
    e.preventDefault();
    const f = file.current?.files?.[0];
    if (!f) return setStatus({ kind: "error", text: "Choose a file first." });
    const type = f.type || TYPES[f.name.split(".").pop()?.toLowerCase() ?? ""] ||
      "application/octet-stream";
    setStatus({ kind: "busy", text: `Uploading ${f.name}…` });
    try {
      const title = f.name.replace(/\.[^.]+$/, "");
      const r = await requestJson<{ document: DocRow }>(
        adminPath(p.siteId, `/documents?title=${encodeURIComponent(title)}`),
        { method: "POST", headers: { "Content-Type": type }, body: f },
      );
      setDocs([r.document, ...docs]);
      setStatus({ kind: "ok", text: `Uploaded ${r.document.title}.` });
    } catch (err) {
      setStatus({ kind: "error", text: failure(err) });
    }
  };
  const remove = async (id: string) => {
    try {
      await requestJson(adminPath(p.siteId, `/documents/${encodeURIComponent(id)}`), {
        method: "DELETE",
      });
      setDocs(docs.filter((d) => d.id !== id));
    } catch (err) {
      setStatus({ kind: "error", text: failure(err) });
    }
  };
  return (
    <div>
      <h3>Documents</h3>
      <form class="inline" onSubmit={upload}>
        <label class="sr-only" for="doc-file">Document (PDF, Markdown, text or HTML)</label>
        <input id="doc-file" type="file" ref={file} accept=".pdf,.md,.markdown,.txt,.html,.htm" />
        <button type="submit" class="button">Upload</button>
      </form>
      <Status value={status} />
      <ul class="rows" aria-label="Documents">
        {docs.slice(0, limit).map((d) => (
          <li>
            <span class="row-main">
              <strong>{d.title}</strong>{" "}
              <span class="path">
                {d.type} · {d.bytes < 1024 ? `${d.bytes} bytes` : `${fmt(d.bytes / 1024)} KB`}
              </span>
            </span>
            <button
              type="button"
              class="button small"
              aria-label={`Delete ${d.title}`}
              onClick={() => remove(d.id)}
            >
              Delete
            </button>
          </li>
        ))}
        {docs.length === 0 ? <li class="muted">No documents yet.</li> : null}
      </ul>
      {docs.length > limit
        ? (
          <p class="more">
            <button type="button" class="button small" onClick={() => setLimit(limit + ROWS_STEP)}>
              Show more
            </button>{" "}
            <span class="muted">{fmt(limit)} of {fmt(docs.length)} shown</span>
          </p>
        )
        : null}
    </div>
  );
}

export function ContentPanel(p: {
  siteId: string;
  pages: PageRow[];
  cursor: string | null;
  /** The site's page count. */
  total: number;
  documentsAllowed: boolean;
  documents: DocRow[];
  lastCrawl: CrawlJobJson | null;
  crawlSettings: CrawlSettings;
  /** The sitemap watch; when not given, the crawl section reads it. */
  watch?: SitemapWatchJson | null;
  /** False while the first-run steps hold the crawl form (one form on the page). */
  crawlHere?: boolean;
}) {
  const [reload, setReload] = useState(0);
  return (
    <Panel id="content" title="Content" wide>
      <div class="columns">
        <Pages
          siteId={p.siteId}
          pages={p.pages}
          cursor={p.cursor}
          total={p.total}
          reload={reload}
        />
        <div>
          {p.crawlHere === false
            ? (
              <>
                <h3>Crawl</h3>
                <p>
                  Crawl your site in the first step of <a href="#first-run">Get started</a>.
                </p>
              </>
            )
            : (
              <CrawlPanel
                siteId={p.siteId}
                last={p.lastCrawl}
                settings={p.crawlSettings}
                freshness
                watch={p.watch}
                onProgress={() => setReload((n) => n + 1)}
              />
            )}
          {p.documentsAllowed ? <Documents siteId={p.siteId} documents={p.documents} /> : (
            <>
              <h3>Documents</h3>
              <p class="muted">Uploading PDFs and other documents comes with the Business plan.</p>
            </>
          )}
        </div>
      </div>
    </Panel>
  );
}
