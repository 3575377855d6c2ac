/// <reference lib="dom" />
/**
 * "Why is this page not searchable?": the owner names a URL or path and reads whether it is
 * searchable, why in a few words, the server's sentence on what to do, and when it was last
 * fetched; a page that is not searchable (and on the site) can be re-fetched from here. Part of
 * the freshness panel, not an island.
 */
import { useState } from "preact/hooks";
import type { UrlStatusJson } from "../lib/wire_types.ts";
import {
  followStatus,
  queuedWords,
  readUrlStatus,
  refetch,
  refetchFailure,
} from "./freshness_api.ts";
import { Slashed } from "./slashes.tsx";
import { failure, Status, type StatusValue } from "./ui.tsx";
import { dateTime } from "./when.ts";

/** Each reason in a few owner-facing words; the server's `detail` says the rest. */
const LABELS: Record<string, string> = {
  indexed: "Indexed",
  robots: "Disallowed by robots.txt",
  noindex: "Marked noindex",
  canonical: "Indexed under its canonical URL",
  excluded: "Excluded by your patterns",
  not_included: "Outside your include patterns",
  too_large: "Too large to index",
  not_html: "Not a web page",
  redirect: "Redirects",
  not_linked: "No link to it found",
  not_crawled: "Not crawled yet",
  off_site: "Not on this site",
};

/** A reason in words, HTTP statuses included. */
export function reasonLabel(reason: string): string {
  if (LABELS[reason]) return LABELS[reason];
  const status = /^http_(\d{3})$/.exec(reason)?.[1];
  if (!status) return "Not indexed";
  if (status === "404" || status === "410") return `Not found (HTTP ${status})`;
  if (status === "401" || status === "403") return `Access denied (HTTP ${status})`;
  if (status.startsWith("5")) return `Server error (HTTP ${status})`;
  return `Server answered HTTP ${status}`;
}

/** A link's address: absolute URLs as they are, paths on the site's origin when it is known. */
function hrefOf(url: string, origin: string | null): string | null {
  const u = URL.parse(url, origin ?? undefined);
  return u && (u.protocol === "http:" || u.protocol === "https:") ? u.href : null;
}

function Result(
  p: { status: UrlStatusJson; origin: string | null; onRefetch: () => void; busy: boolean },
) {
  const s = p.status;
  const target = s.canonical && (s.reason === "canonical" || s.reason === "redirect")
    ? s.canonical
    : null;
  const href = target ? hrefOf(target, p.origin) : null;
  return (
    <div class="url-status" data-url-status={s.reason} data-searchable={String(s.searchable)}>
      <p>
        <span class={`tag ${s.searchable ? "ok" : "error"}`}>
          {s.searchable ? "Searchable" : "Not searchable"}
        </span>{" "}
        <strong data-reason>{reasonLabel(s.reason)}</strong>
        {target
          ? (
            <>
              {s.reason === "redirect" ? " to " : ": "}
              {href
                ? (
                  <a href={href} rel="noopener" data-canonical>
                    <Slashed text={target} />
                  </a>
                )
                : <Slashed text={target} />}
            </>
          )
          : null}
      </p>
      <p class="path">
        <Slashed text={s.url} />
      </p>
      <p data-detail>{s.detail}</p>
      <p class="muted" data-fetched>
        {s.lastFetched ? `Last fetched ${dateTime(s.lastFetched)}` : "Never fetched"}
      </p>
      {!s.searchable && s.reason !== "off_site"
        ? (
          <button
            type="button"
            class="button small"
            disabled={p.busy}
            onClick={p.onRefetch}
            data-status-refetch
          >
            Re-fetch
          </button>
        )
        : null}
    </div>
  );
}

export function UrlStatusBox(p: {
  siteId: string;
  /** The origin the site was last crawled from, to link a canonical path; null if none. */
  siteOrigin: string | null;
}) {
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<UrlStatusJson | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);
  const [busy, setBusy] = useState(false);
  const check = async (e: Event) => {
    e.preventDefault();
    const asked = url.trim();
    if (!asked) {
      setError("Enter a URL or a path of your site, such as /pricing.");
      document.getElementById("url-status-url")?.focus();
      return;
    }
    setError(null);
    setStatus({ kind: "busy", text: "Checking…" });
    try {
      setResult(await readUrlStatus(p.siteId, asked));
      setStatus(null);
    } catch (err) {
      setResult(null);
      setStatus(null);
      setError(failure(err));
    }
  };
  const again = async () => {
    if (!result) return;
    setBusy(true);
    setStatus({ kind: "busy", text: "Queuing…" });
    try {
      const r = await refetch(p.siteId, [result.url]);
      setStatus({ kind: "busy", text: `${queuedWords(r.queued)} Checking again…` });
      setResult(
        await followStatus({ siteId: p.siteId, url: result.url, before: result.lastFetched }),
      );
      setStatus({ kind: "ok", text: queuedWords(r.queued) });
    } catch (err) {
      setStatus({ kind: "error", text: refetchFailure(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="url-status-box">
      <h3>Why is this page not searchable?</h3>
      <form class="inline" onSubmit={check} noValidate>
        <label class="sr-only" for="url-status-url">URL or path</label>
        <input
          id="url-status-url"
          name="url"
          type="text"
          inputMode="url"
          placeholder="/pricing or https://www.example.com/pricing"
          value={url}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "url-status-error" : undefined}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="button">Check</button>
      </form>
      {error ? <p class="field-error status error" id="url-status-error">{error}</p> : null}
      <Status value={status} />
      {result
        ? <Result status={result} origin={p.siteOrigin} onRefetch={again} busy={busy} />
        : null}
    </div>
  );
}
