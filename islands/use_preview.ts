/// <reference lib="dom" />
/** A draft checked and previewed as the owner types: one call, debounced, the stale one aborted. */
import { useEffect, useState } from "preact/hooks";
import {
  type CurationDraft,
  fieldMessage,
  type Preview,
  previewLevers,
  type SynonymDraft,
} from "./levers_api.ts";

const DEBOUNCE_MS = 250;

/**
 * The server checks the draft lists exactly as a save would (one home for the rules) and
 * answers the query's results with and without them; `error` is its complaint in words.
 */
export function usePreview(
  siteId: string,
  q: string,
  lists: { synonyms?: SynonymDraft[]; curations?: CurationDraft[] } | null,
) {
  const [value, setValue] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify([q, lists]);
  useEffect(() => {
    if (!lists || !q.trim()) {
      setValue(null);
      setError(null);
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(async () => {
      try {
        setValue(await previewLevers(siteId, q, lists, abort.signal));
        setError(null);
      } catch (e) {
        if (abort.signal.aborted) return;
        setValue(null);
        setError(fieldMessage(e));
      }
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [key]);
  return { value, error };
}
