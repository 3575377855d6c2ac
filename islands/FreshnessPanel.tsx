/// <reference lib="dom" />
/**
 * Keeping search in step with the site, beside the Content panel: re-fetch pages the owner
 * changed, and ask why a page is or is not searchable.
 */
import { RefetchField } from "./RefetchField.tsx";
import { UrlStatusBox } from "./UrlStatusBox.tsx";
import { Panel } from "./ui.tsx";

export function FreshnessPanel(p: {
  siteId: string;
  /** The origin the site was last crawled from, to link a canonical path; null if none. */
  siteOrigin: string | null;
}) {
  return (
    <Panel id="freshness" title="Keep search up to date" wide>
      <div class="columns">
        <RefetchField siteId={p.siteId} />
        <UrlStatusBox siteId={p.siteId} siteOrigin={p.siteOrigin} />
      </div>
    </Panel>
  );
}
