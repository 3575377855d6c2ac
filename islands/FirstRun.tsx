/// <reference lib="dom" />
/**
 * The owner's first steps: add pages (crawl, or upload), try the site's own results page, embed
 * the two script tags. Each step is marked done by what the service can see: the site holds
 * pages; a search was made (this month's count, or the analytics window's); the code was copied
 * in this browser. A new, empty site opens on these steps with the crawl form and the code in
 * them; a site with pages shows them folded, each pointing to the panel that does it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { requestJson } from "./api.ts";
import { CrawlPanel, type CrawlSettings } from "./CrawlPanel.tsx";
import { PAGES_CHANGED_EVENT } from "./ContentPanel.tsx";
import {
  EMBED_COPIED_EVENT,
  EmbedCode,
  embedCopied,
  type EmbedProps,
  usePublicKey,
} from "./EmbedSnippet.tsx";
import type { CrawlJobJson } from "../lib/wire_types.ts";
import { adminPath, fmt, Panel } from "./ui.tsx";

export interface FirstRunProps extends EmbedProps {
  /** The hosted results page's path on this service (routes/results_page.tsx). */
  resultsPath: string;
  /** Pages and documents the site holds. */
  pages: number;
  /** Whether anyone searched the site lately (this month, or in the analytics window). */
  searched: boolean;
  /** The empty site's first visit: the steps lead, holding the crawl form and the code. */
  open: boolean;
  /** The crawl form's start (only while open: the Content panel has it otherwise). */
  crawl: { last: CrawlJobJson | null; settings: CrawlSettings } | null;
  documentsAllowed: boolean;
}

/** How often, and how long, the try-it step looks for the owner's search once they went to try. */
const WATCH_MS = 2_000;
const WATCH_FOR_MS = 5 * 60_000;

interface Counts {
  pages: { count: number };
  month: { used: number };
}

/** The hosted results page of the site with `key`, with a query if given. */
export const resultsHref = (path: string, key: string, q?: string) =>
  `${path}?${new URLSearchParams({ key, ...(q ? { q } : {}) })}`;

function Step(
  p: {
    id: string;
    n: number;
    title: string;
    done: boolean;
    doneText: string;
    current: boolean;
    children: ComponentChildren;
  },
) {
  return (
    <li
      class={`step${p.done ? " done" : ""}`}
      data-step={p.id}
      data-done={String(p.done)}
      aria-current={p.current ? "step" : undefined}
    >
      <span class="step-mark" aria-hidden="true">{p.done ? "✓" : p.n}</span>
      <div class="step-body">
        <h3>
          {p.title} {p.done
            ? <span class="tag ok" data-step-state>Done</span>
            : p.current
            ? <span class="tag" data-step-state>Next</span>
            : <span class="sr-only" data-step-state>Not done yet</span>}
        </h3>
        {p.done ? <p class="muted step-note">{p.doneText}</p> : null}
        {p.children}
      </div>
    </li>
  );
}

export function FirstRun(p: FirstRunProps) {
  const key = usePublicKey(p.publicKey);
  const [pages, setPages] = useState(p.pages);
  const [searched, setSearched] = useState(p.searched);
  const [copied, setCopied] = useState(false);
  const [q, setQ] = useState("");
  const watchUntil = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refresh = async () => {
    try {
      const u = await requestJson<Counts>(adminPath(p.siteId, "/usage"));
      setPages((n) => Math.max(n, u.pages.count));
      if (u.month.used > 0) setSearched(true);
      return u.month.used > 0;
    } catch {
      return false; // the next look, or a reload, tells
    }
  };
  /** After the owner opened the results page: look for their search while they try it. */
  const watch = () => {
    watchUntil.current = Date.now() + WATCH_FOR_MS;
    clearTimeout(timer.current);
    const look = async () => {
      if (await refresh() || Date.now() > watchUntil.current) return;
      timer.current = setTimeout(look, WATCH_MS);
    };
    timer.current = setTimeout(look, WATCH_MS);
  };

  useEffect(() => {
    setCopied(embedCopied(p.siteId));
    const onCopy = () => setCopied(true);
    const back = () => void (document.visibilityState === "visible" && refresh());
    addEventListener(EMBED_COPIED_EVENT, onCopy);
    addEventListener("focus", back);
    document.addEventListener("visibilitychange", back);
    return () => {
      clearTimeout(timer.current);
      removeEventListener(EMBED_COPIED_EVENT, onCopy);
      removeEventListener("focus", back);
      document.removeEventListener("visibilitychange", back);
    };
  }, []);

  const crawled = pages > 0;
  const done = [crawled, searched, copied];
  const current = done.indexOf(false);
  const count = done.filter(Boolean).length;
  const results = resultsHref(p.resultsPath, key);
  const openLink = () => (
    <a
      class="button small"
      href={results}
      target="_blank"
      rel="noopener"
      data-open-results
      onClick={watch}
    >
      Open my results page
    </a>
  );

  const steps = (
    <ol class="steps">
      <Step
        id="crawl"
        n={1}
        title="Add your pages"
        done={crawled}
        doneText={`${fmt(pages)} ${pages === 1 ? "page" : "pages"} in the index.`}
        current={current === 0}
      >
        {p.open && p.crawl
          ? (
            <>
              <p>
                Crawl your site from its sitemap or home page
                {p.documentsAllowed ? ", or upload documents under Content" : ""}.
              </p>
              <CrawlPanel
                siteId={p.siteId}
                last={p.crawl.last}
                settings={p.crawl.settings}
                onProgress={(running) => {
                  dispatchEvent(new CustomEvent(PAGES_CHANGED_EVENT));
                  if (!running || !crawled) void refresh();
                }}
              />
            </>
          )
          : (
            <p>
              Crawl again, change what is crawled{p.documentsAllowed ? " or upload documents" : ""}
              {" "}
              under <a href="#content">Content</a>.
            </p>
          )}
      </Step>
      <Step
        id="try"
        n={2}
        title="Try it"
        done={searched}
        doneText="Your site has been searched."
        current={current === 1}
      >
        <p>
          Your site has its own results page here. Search it as a visitor would:
        </p>
        <form
          class="searchbox try"
          method="get"
          action={p.resultsPath}
          target="_blank"
          role="search"
          onSubmit={watch}
        >
          <input type="hidden" name="key" value={key} />
          <label class="sr-only" for="try-q">Search your site</label>
          <input
            id="try-q"
            name="q"
            type="search"
            required
            placeholder="Search your site"
            value={q}
            onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="button primary">Search</button>
        </form>
        <p class="actions">{openLink()}</p>
      </Step>
      <Step
        id="embed"
        n={3}
        title="Embed"
        done={copied}
        doneText="You copied the code (in this browser)."
        current={current === 2}
      >
        {p.open
          ? (
            <>
              <p>Paste these two tags into your site, and its own pages search with SiteSearch.</p>
              <EmbedCode
                siteId={p.siteId}
                origin={p.origin}
                publicKey={p.publicKey}
                resultsPage={p.resultsPage}
              />
            </>
          )
          : (
            <p>
              Copy the two script tags under <a href="#embed">Embed</a> into your site.
            </p>
          )}
      </Step>
    </ol>
  );

  return (
    <Panel id="first-run" title="Get started" wide actions={p.open ? undefined : openLink()}>
      {p.open ? steps : (
        <details class="steps-fold">
          <summary>
            {count === 3 ? "All three steps done" : `${count} of 3 steps done`}: show the steps
          </summary>
          {steps}
        </details>
      )}
    </Panel>
  );
}
