/// <reference lib="dom" />
/** The two script tags to paste, filled in with the site's key and results page. */
import { useEffect, useState } from "preact/hooks";
import { PUBLIC_KEY_EVENT } from "./KeysPanel.tsx";
import { CopyButton, Panel } from "./ui.tsx";

export function EmbedSnippet(p: { origin: string; publicKey: string; resultsPage: string }) {
  const [key, setKey] = useState(p.publicKey);
  useEffect(() => {
    const changed = (e: Event) => setKey(String((e as CustomEvent).detail));
    addEventListener(PUBLIC_KEY_EVENT, changed);
    return () => removeEventListener(PUBLIC_KEY_EVENT, changed);
  }, []);
  const head =
    `<script async src="${p.origin}/widget.js"\n  data-key="${key}"\n  data-results-page="${p.resultsPage}"\n  data-live="true"></script>`;
  const results =
    `<script defer src="${p.origin}/results.js"\n  data-key="${key}"\n  data-summary="true"></script>`;
  return (
    <Panel id="embed" title="Embed" wide>
      <p>
        In the site-wide <code>&lt;head&gt;</code>, on every page:
      </p>
      <div class="embed-snippet">
        <pre class="code"><code data-snippet="widget">{head}</code></pre>
        <CopyButton text={head} label="Copy" />
      </div>
      <p>On the results page ({p.resultsPage}):</p>
      <div class="embed-snippet">
        <pre class="code"><code data-snippet="results">{results}</code></pre>
        <CopyButton text={results} label="Copy" />
      </div>
    </Panel>
  );
}
