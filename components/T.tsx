/** Visitor strings on server-rendered pages, in the page's language (renderPage's locale). */
import { friendly, t, withLocale } from "../widget/client/strings.ts";
import { TABLES } from "../widget/i18n/all.ts";
import { locale, pickLang, type TextKey } from "../widget/i18n/index.ts";

/** A message looked up when the page renders. */
export function T({ k }: { k: TextKey }) {
  return <>{t(k)}</>;
}

/** The line a visitor reads for a failed search, worded in `lang` (English without a table). */
export function failureLine(lang: string | null | undefined, err: unknown): string {
  const l = pickLang(lang);
  return withLocale(locale(l, TABLES[l]), () => friendly(err));
}
