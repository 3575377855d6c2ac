/// <reference lib="dom" />
/** The site's content: pages (search, delete), a crawl with live progress, documents. */
import { useEffect, useRef, useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, failure, fmt, Panel, Status, type StatusValue } from "./ui.tsx";

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

export interface CrawlJob {
  id: string;
  status: string;
  url: string;
  counts: Partial<
    Record<
      "discovered" | "fetched" | "indexed" | "unchanged" | "removed" | "skipped" | "failed",
      number
    >
  >;
  startedAt?: string;
  finishedAt?: string | null;
}

const RUNNING = new Set(["queued", "running"]);
const POLL_MS = 500;

const TYPES: Record<string, string> = {
  pdf: "application/pdf",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  htm: "text/html",
};

function Pages(p: { siteId: string; pages: PageRow[]; cursor: string | null; reload: number }) {
  const [pages, setPages] = useState(p.pages);
  const [cursor, setCursor] = useState(p.cursor);
  const [filter, setFilter] = useState("");
  const [confirm, setConfirm] = useState<string | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);
  const load = async (more: boolean) => {
    try {
      const q = more && cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const r = await requestJson<{ pages: PageRow[]; cursor: string | null }>(
        adminPath(p.siteId, `/pages?limit=100${q}`),
      );
      setPages(more ? [...pages, ...r.pages] : r.pages);
      setCursor(r.cursor);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  useEffect(() => void (p.reload && load(false)), [p.reload]);
  const remove = async (url: string) => {
    setConfirm(null);
    try {
      await requestJson(adminPath(p.siteId, `/pages?url=${encodeURIComponent(url)}`), {
        method: "DELETE",
      });
      setPages(pages.filter((x) => x.url !== url));
      setStatus({ kind: "ok", text: `Deleted ${url}.` });
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  const f = filter.trim().toLowerCase();
  const shown = f ? pages.filter((x) => (x.title + " " + x.url).toLowerCase().includes(f)) : pages;
  return (
    <div>
      <h3>
        Pages <span class="muted">({fmt(pages.length)}{cursor ? "+" : ""})</span>
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
              <strong>{x.title}</strong> <span class="path">{x.url}</span>
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
                <button
                  type="button"
                  class="button small"
                  aria-label={`Delete ${x.url}`}
                  onClick={() => setConfirm(x.url)}
                >
                  Delete…
                </button>
              )}
          </li>
        ))}
        {shown.length === 0
          ? (
            <li class="muted">
              {pages.length ? "No page matches." : "No pages yet: crawl your site below."}
            </li>
          )
          : null}
      </ul>
      {cursor
        ? <button type="button" class="button small" onClick={() => load(true)}>Load more</button>
        : null}
    </div>
  );
}

function Crawl(p: { siteId: string; last: CrawlJob | null; onDone: () => void }) {
  const [url, setUrl] = useState("");
  const [job, setJob] = useState<CrawlJob | null>(p.last);
  const [status, setStatus] = useState<StatusValue>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const follow = (id: string) => {
    timer.current = setTimeout(async () => {
      try {
        const j = await requestJson<CrawlJob>(
          adminPath(p.siteId, `/crawl/${encodeURIComponent(id)}`),
        );
        setJob(j);
        if (RUNNING.has(j.status)) return follow(id);
        p.onDone();
      } catch (e) {
        setStatus({ kind: "error", text: failure(e) });
      }
    }, POLL_MS);
  };
  useEffect(() => {
    if (p.last && RUNNING.has(p.last.status)) follow(p.last.id);
    return () => clearTimeout(timer.current);
  }, []);
  const start = async (e: Event) => {
    e.preventDefault();
    setStatus(null);
    try {
      const r = await requestJson<{ job: CrawlJob }>(
        adminPath(p.siteId, "/crawl"),
        jsonBody("POST", { url: url.trim() }),
      );
      setJob(r.job);
      follow(r.job.id);
    } catch (err) {
      setStatus({ kind: "error", text: failure(err) });
    }
  };
  const c = job?.counts ?? {};
  const handled = (c.indexed ?? 0) + (c.unchanged ?? 0) + (c.skipped ?? 0) + (c.failed ?? 0);
  const running = job ? RUNNING.has(job.status) : false;
  return (
    <div>
      <h3>Crawl</h3>
      <form class="inline" onSubmit={start}>
        <label class="sr-only" for="crawl-url">Sitemap or start page URL</label>
        <input
          id="crawl-url"
          type="url"
          required
          placeholder="https://www.example.com/sitemap.xml"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="button primary" disabled={running}>Crawl</button>
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
              max={Math.max(c.discovered ?? 0, 1)}
              value={running ? handled : Math.max(c.discovered ?? 0, 1)}
              aria-label="Crawl progress"
            />
            <p class="muted" data-crawl-counts>
              {fmt(c.discovered ?? 0)} found · {fmt(c.fetched ?? 0)} fetched · {fmt(c.indexed ?? 0)}
              {" "}
              indexed · {fmt(c.unchanged ?? 0)} unchanged · {fmt(c.skipped ?? 0)} skipped ·{" "}
              {fmt(c.failed ?? 0)} failed
            </p>
          </div>
        )
        : null}
    </div>
  );
}

function Documents(p: { siteId: string; documents: DocRow[] }) {
  const [docs, setDocs] = useState(p.documents);
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
        {docs.map((d) => (
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
    </div>
  );
}

export function ContentPanel(p: {
  siteId: string;
  pages: PageRow[];
  cursor: string | null;
  documentsAllowed: boolean;
  documents: DocRow[];
  lastCrawl: CrawlJob | null;
}) {
  const [reload, setReload] = useState(0);
  return (
    <Panel id="content" title="Content" wide>
      <div class="columns">
        <Pages siteId={p.siteId} pages={p.pages} cursor={p.cursor} reload={reload} />
        <div>
          <Crawl siteId={p.siteId} last={p.lastCrawl} onDone={() => setReload((n) => n + 1)} />
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
