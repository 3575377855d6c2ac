/** The landing page at `/`: what the service does and where to try it. No islands, no secrets. */

const FEATURES: [string, string][] = [
  ["Search as you type", "Ranked results with highlights, typo-tolerant, in a few milliseconds."],
  ["AI answers with sources", "Streamed summaries from your own pages, with follow-up questions."],
  ["Two script tags", "A search bar and a results page that fit any website builder."],
  ["Crawler and documents", "Index a site from its sitemap, or upload PDFs and text."],
  ["Analytics", "What visitors search for, what finds nothing, what they click."],
  ["Plans and quotas", "Per-minute and monthly limits, AI credits, rate-limit headers."],
];

const DEMO_LINKS: [string, string, string][] = [
  ["/demo/", "Demo site", "A coffee roaster's site with the search bar and results page embedded."],
  ["/search-results?q=shipping", "Results page demo", "Server-rendered results with islands."],
];
const LINKS: [string, string, string][] = [
  ["/dashboard", "Dashboard", "Sign in with a site admin key to see usage and analytics."],
  ["/docs/api", "API reference", "Search, summaries, the admin API and the error envelope."],
];

// The two tags as README.md and docs/api.md ("Browser scripts") give them.
const WIDGET_TAG = `<script async src="https://YOUR-SITESEARCH-HOST/widget.js"
  data-key="pk_YOUR_PUBLIC_KEY"
  data-results-page="/search-results"
  data-live="true"></script>`;
const RESULTS_TAG = `<script defer src="https://YOUR-SITESEARCH-HOST/results.js"
  data-key="pk_YOUR_PUBLIC_KEY"
  data-summary="true"></script>`;

/** `demo`: the demo is served here (never in production mode), so the page may point at it. */
export function Landing({ demo }: { demo: boolean }) {
  return (
    <>
      <section class="hero">
        <h1>Site search with AI answers, in two script tags</h1>
        <p class="lede">
          SiteSearch indexes your website, answers visitors' searches in milliseconds and their
          questions with a cited AI summary, and tells you what they were looking for.
        </p>
        <p class="actions">
          {demo
            ? <a class="button primary" href="/search-results?q=shipping">Try the results page</a>
            : null}
          <a class={demo ? "button" : "button primary"} href="/dashboard">Open the dashboard</a>
          <a class="button" href="/docs/api">Read the API reference</a>
        </p>
      </section>
      <section aria-labelledby="try">
        <h2 id="try">{demo ? "Try it" : "Get started"}</h2>
        <ul class="cards">
          {[...(demo ? DEMO_LINKS : []), ...LINKS].map(([href, title, text]) => (
            <li class="card">
              <a href={href}>
                <strong>{title}</strong>
                <span>{text}</span>
              </a>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="what">
        <h2 id="what">What it does</h2>
        <ul class="features">
          {FEATURES.map(([title, text]) => (
            <li>
              <strong>{title}</strong>
              <span>{text}</span>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="embed">
        <h2 id="embed">Add it to a site</h2>
        <p>
          In the site-wide <code>&lt;head&gt;</code>, on every page: the search bar.
        </p>
        <pre class="code"><code>{WIDGET_TAG}</code></pre>
        <p>
          In the <code>&lt;head&gt;</code> of a page published at{" "}
          <code>/search-results</code>: the results and the AI answer.
        </p>
        <pre class="code"><code>{RESULTS_TAG}</code></pre>
      </section>
    </>
  );
}
