/** The page shell of the service's own pages: head, header with navigation, footer. */
import type { ComponentChildren } from "preact";
import { t } from "../widget/client/strings.ts";
import type { Locale, TextKey } from "../widget/i18n/index.ts";
import { STRINGS_ID } from "../islands/hydrate.ts";
import { scriptJson } from "./Island.tsx";

// Worded in the page's language: the hosted results page is a visitor's page in the site's.
const NAV: [string, TextKey][] = [
  ["/", "navHome"],
  ["/dashboard", "navDashboard"],
  ["/docs/api", "navApiReference"],
];
/** Only where the demo is served: production has no /demo/, and no demo results to show. */
const DEMO_NAV: [string, TextKey][] = [
  ["/search-results", "navResultsDemo"],
  ["/demo/", "navDemoSite"],
];

export function Layout(
  props: {
    title: string;
    path: string;
    scripts: string[];
    locale: Locale;
    demo: boolean;
    children: ComponentChildren;
  },
) {
  const { lang, dir, table } = props.locale;
  return (
    <html lang={lang} dir={dir}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{props.title}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/app.css" />
        {props.scripts.length && lang !== "en"
          ? (
            <script
              type="application/json"
              id={STRINGS_ID}
              dangerouslySetInnerHTML={{ __html: scriptJson(table) }}
            />
          )
          : null}
        {props.scripts.map((name) => <script key={name} type="module" src={`/assets/${name}`} />)}
      </head>
      <body>
        <a class="skip" href="#main">{t("skipToContent")}</a>
        <header class="top">
          <a class="brand" href="/">
            <span class="logo" aria-hidden="true">◎</span> SiteSearch
          </a>
          <nav aria-label={t("navLabel")}>
            {[...NAV, ...(props.demo ? DEMO_NAV : [])].map(([href, label]) => (
              <a href={href} aria-current={props.path === href ? "page" : undefined}>{t(label)}</a>
            ))}
          </nav>
        </header>
        <main id="main">{props.children}</main>
        <footer class="foot">
          {t("footerTagline")} <a href="/docs/api">{t("navApiReference")}</a>
        </footer>
      </body>
    </html>
  );
}
