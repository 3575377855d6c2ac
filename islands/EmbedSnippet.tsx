/// <reference lib="dom" />
/**
 * The two script tags to paste, filled in with the site's key and results page: the Embed panel,
 * and the same code as the last step of the first-run steps (FirstRun.tsx).
 */
import { useEffect, useState } from "preact/hooks";
import { PUBLIC_KEY_EVENT } from "./KeysPanel.tsx";
import { Slashed } from "./slashes.tsx";
import { CopyButton, Panel } from "./ui.tsx";

export interface EmbedProps {
  siteId: string;
  origin: string;
  publicKey: string;
  resultsPage: string;
}

/** Said on the page when the owner copied either tag (FirstRun marks its Embed step done). */
export const EMBED_COPIED_EVENT = "sitesearch:embed-copied";

/**
 * Where this browser remembers that the owner copied the code. The copy is all the dashboard
 * can see of embedding: the tags run on the owner's own site.
 */
export const embedCopiedKey = (siteId: string) => `sitesearch:embed-copied:${siteId}`;

/** Whether the owner copied the code in this browser. */
export function embedCopied(siteId: string): boolean {
  try {
    return localStorage.getItem(embedCopiedKey(siteId)) !== null;
  } catch {
    return false; // storage refused (private mode, a policy): the step just stays open
  }
}

function markCopied(siteId: string) {
  try {
    localStorage.setItem(embedCopiedKey(siteId), new Date().toISOString());
  } catch { /* remembered for this page only */ }
  dispatchEvent(new CustomEvent(EMBED_COPIED_EVENT, { detail: siteId }));
}

/** The public key, following a rotation made in the Keys panel. */
export function usePublicKey(initial: string): string {
  const [key, setKey] = useState(initial);
  useEffect(() => {
    const changed = (e: Event) => setKey(String((e as CustomEvent).detail));
    addEventListener(PUBLIC_KEY_EVENT, changed);
    return () => removeEventListener(PUBLIC_KEY_EVENT, changed);
  }, []);
  return key;
}

/** The two tags with a copy button each; lines wrap (after a slash inside a URL) on a phone. */
export function EmbedCode(p: EmbedProps) {
  const key = usePublicKey(p.publicKey);
  const head =
    `<script async src="${p.origin}/widget.js"\n  data-key="${key}"\n  data-results-page="${p.resultsPage}"\n  data-live="true"></script>`;
  const results =
    `<script defer src="${p.origin}/results.js"\n  data-key="${key}"\n  data-summary="true"></script>`;
  const copied = () => markCopied(p.siteId);
  return (
    <>
      <p>
        In the site-wide <code>&lt;head&gt;</code>, on every page:
      </p>
      <div class="embed-snippet">
        <pre class="code"><code data-snippet="widget"><Slashed text={head} /></code></pre>
        <CopyButton text={head} label="Copy" onCopied={copied} />
      </div>
      <p>
        On the results page (<Slashed text={p.resultsPage} />):
      </p>
      <div class="embed-snippet">
        <pre class="code"><code data-snippet="results"><Slashed text={results} /></code></pre>
        <CopyButton text={results} label="Copy" onCopied={copied} />
      </div>
    </>
  );
}

export function EmbedSnippet(p: EmbedProps) {
  return (
    <Panel id="embed" title="Embed" wide>
      <EmbedCode {...p} />
    </Panel>
  );
}
