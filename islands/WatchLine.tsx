/// <reference lib="dom" />
/** The sitemap watch in one line of the crawl section: what is watched, when, what it found. */
import type { SitemapWatchJson } from "../lib/wire_types.ts";
import { Slashed } from "./slashes.tsx";
import { fmt } from "./ui.tsx";
import { ago, fromNow } from "./when.ts";

/** What the last look found, or that there was none yet, or why it failed. */
function lastLook(w: SitemapWatchJson): string {
  if (w.error) return w.error.replace(/\.$/, "");
  if (!w.lastLookedAt) return "not looked yet";
  const f = w.found;
  const found = f
    ? `, found ${fmt(f.changed)} changed, ${fmt(f.added)} added, ${fmt(f.removed)} removed`
    : "";
  return `last looked ${ago(w.lastLookedAt)}${found}`;
}

export function WatchLine({ watch }: { watch: SitemapWatchJson }) {
  if (!watch.sitemap) {
    return (
      <p class="help" data-watch="none">
        No sitemap to watch: crawl from your sitemap's URL (or name it in robots.txt) and its
        changes are picked up without a full re-crawl.
      </p>
    );
  }
  return (
    <p class={`watch help${watch.error ? " error" : ""}`} data-watch="sitemap">
      Sitemap watched{" "}
      {watch.every === "daily" ? "daily (every 15 minutes on paid plans)" : "every 15 minutes"}:
      {" "}
      {lastLook(watch)}
      {watch.nextAt ? `; next look ${fromNow(watch.nextAt)}` : ""}.
      <span class="path">
        <Slashed text={watch.sitemap} />
      </span>
    </p>
  );
}
