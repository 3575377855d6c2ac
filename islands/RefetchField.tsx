/// <reference lib="dom" />
/**
 * Re-fetch named pages now, without a full crawl (part of the freshness panel, not an island):
 * one URL or path a line, checked before sending; a line the API refuses is named by its number.
 */
import { useState } from "preact/hooks";
import { MAX_REFETCH, queuedWords, refetch, refetchFailure } from "./freshness_api.ts";
import { HttpError } from "./api.ts";
import { fmt, Status, type StatusValue } from "./ui.tsx";

const EXAMPLE = ["/pricing", "https://www.example.com/docs/setup"].join("\n");

/** The list's URLs, each with its line number (blank lines skipped). */
function listed(text: string): { url: string; line: number }[] {
  return text.split("\n").map((x, i) => ({ url: x.trim(), line: i + 1 })).filter((x) => x.url);
}

/** What is wrong with a line before the API sees it, or null. */
function lineProblem(url: string): string | null {
  if (url.startsWith("/") && !url.startsWith("//")) return null;
  const u = URL.parse(url);
  if (u && (u.protocol === "http:" || u.protocol === "https:")) return null;
  return `“${url}” is neither a path (/docs/a) nor a full URL (https://…) of your site.`;
}

export function RefetchField(p: { siteId: string }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);
  const refuse = (message: string) => {
    setError(message);
    setStatus(null);
    document.getElementById("refetch-urls")?.focus();
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const items = listed(text);
    if (!items.length) return refuse("Enter at least one URL or path, one a line.");
    if (items.length > MAX_REFETCH) {
      return refuse(
        `At most ${fmt(MAX_REFETCH)} URLs at a time: this list has ${fmt(items.length)}.`,
      );
    }
    const bad = items.find((x) => lineProblem(x.url));
    if (bad) return refuse(`Line ${bad.line}: ${lineProblem(bad.url)}`);
    setError(null);
    setStatus({ kind: "busy", text: "Queuing…" });
    try {
      const r = await refetch(p.siteId, items.map((x) => x.url));
      setStatus({ kind: "ok", text: queuedWords(r.queued) });
    } catch (err) {
      const param = err instanceof HttpError && err.code !== "REFETCH_RATE_LIMIT_EXCEEDED"
        ? /^urls(?:\[(\d+)\])?$/.exec(err.param ?? "")
        : null;
      if (!param) return setStatus({ kind: "error", text: refetchFailure(err) });
      const item = param[1] === undefined ? undefined : items[Number(param[1])];
      // A message that starts with the parameter's name says the URL instead.
      const message = refetchFailure(err);
      const named = item && message.replace(/^urls\[\d+\]/, item.url);
      refuse(
        !item
          ? message
          : named !== message
          ? `Line ${item.line}: ${named}`
          : `Line ${item.line} (${item.url}): ${message}`,
      );
    }
  };
  return (
    <form class="refetch" onSubmit={submit} noValidate data-refetch>
      <h3>Re-fetch pages</h3>
      <label for="refetch-urls">Pages you changed</label>
      <textarea
        id="refetch-urls"
        name="urls"
        rows={3}
        placeholder={EXAMPLE}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "refetch-urls-error refetch-urls-help" : "refetch-urls-help"}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      {error ? <p class="field-error status error" id="refetch-urls-error">{error}</p> : null}
      <p id="refetch-urls-help" class="help">
        One path or URL a line, up to {fmt(MAX_REFETCH)}: they are fetched now, without a crawl.
      </p>
      <button type="submit" class="button">Re-fetch now</button>
      <Status value={status} />
    </form>
  );
}
