/** A visitor string in the page's language, looked up when the page renders (renderPage's locale). */
import { t } from "../widget/client/strings.ts";
import type { TextKey } from "../widget/i18n/index.ts";

export function T({ k }: { k: TextKey }) {
  return <>{t(k)}</>;
}
