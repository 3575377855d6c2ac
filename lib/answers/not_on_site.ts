/**
 * The one sentence an answer is when the site does not answer the question, in the site's
 * language: the scripts' own "no answer" string (widget/i18n), so visitors read the same
 * words whichever surface shows it.
 */
import { TABLES } from "../../widget/i18n/all.ts";

/** "No answer found on this site." in `lang` (a table's language, else English). */
export function notOnSite(lang: string): string {
  const base = lang.toLowerCase().split(/[-_]/)[0];
  const table = (TABLES as Record<string, { noAnswer?: string }>)[base] ?? TABLES.en;
  return table.noAnswer ?? TABLES.en.noAnswer;
}
