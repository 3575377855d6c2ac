/** The page shell of the service's own pages: head, header with navigation, footer. */
import type { ComponentChildren } from "preact";
import { t } from "../widget/client/strings.ts";
import type { Locale } from "../widget/i18n/index.ts";
import { STRINGS_ID } from "../islands/hydrate.ts";
import { scriptJson } from "./Island.tsx";

const NAV: [string, string][] = [
  ["/", "Home"],
  ["/search-results", "Results demo"],
  ["/demo/", "Demo site"],
  ["/dashboard", "Dashboard"],
];

export function Layout(
  props: {
    title: string;
    path: string;
    scripts: string[];
    locale: Locale;
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
          <nav aria-label="Main">
            {NAV.map(([href, label]) => (
              <a href={href} aria-current={props.path === href ? "page" : undefined}>{label}</a>
            ))}
          </nav>
        </header>
        <main id="main">{props.children}</main>
        <footer class="foot">
          SiteSearch: hosted site search with AI answers. <a href="/docs/api">API reference</a>
        </footer>
      </body>
    </html>
  );
}
