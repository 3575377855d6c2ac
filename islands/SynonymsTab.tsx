/// <reference lib="dom" />
/** The synonyms tab: the site's list, and a form for a new one with a live preview. */
import { useState } from "preact/hooks";
import { LeverPreview } from "./LeverPreview.tsx";
import { LeverRows } from "./LeverRows.tsx";
import { items, type Limits, type SynonymDraft } from "./levers_api.ts";
import { usePreview } from "./use_preview.ts";

const describe = (s: SynonymDraft) =>
  "words" in s ? s.words.join(" ⇄ ") : `${s.word} → ${s.means.join(", ")}`;

export function SynonymsTab(
  p: {
    siteId: string;
    list: SynonymDraft[];
    limits: Limits;
    save: (next: SynonymDraft[]) => Promise<boolean>;
  },
) {
  const [twoWay, setTwoWay] = useState(true);
  const [words, setWords] = useState("");
  const [word, setWord] = useState("");
  const [means, setMeans] = useState("");
  const [q, setQ] = useState("");
  const draft: SynonymDraft | null = twoWay
    ? (items(words).length ? { words: items(words) } : null)
    : (word.trim() ? { word: word.trim(), means: items(means) } : null);
  const query = q || (twoWay ? items(words)[0] : word.trim()) || "";
  const full = p.list.length >= p.limits.synonyms;
  const { value, error } = usePreview(
    p.siteId,
    query,
    draft ? { synonyms: [...p.list, draft] } : null,
  );
  const add = async (e: Event) => {
    e.preventDefault();
    if (!draft || error) return;
    if (await p.save([...p.list, draft])) [setWords, setWord, setMeans].forEach((f) => f(""));
  };
  return (
    <div>
      <LeverRows
        label="Synonyms"
        empty="No synonyms yet."
        list={p.list}
        save={p.save}
        row={describe}
      />
      <form class="lever-form" onSubmit={add} aria-label="Add a synonym">
        <fieldset class="inline">
          <legend class="sr-only">Kind</legend>
          <label class="check">
            <input type="radio" name="syn-kind" checked={twoWay} onChange={() => setTwoWay(true)} />
            {" "}
            Two-way (each finds the others)
          </label>
          <label class="check">
            <input
              type="radio"
              name="syn-kind"
              checked={!twoWay}
              onChange={() => setTwoWay(false)}
            />{" "}
            One-way (a word also finds others)
          </label>
        </fieldset>
        {twoWay
          ? (
            <div class="field">
              <label for="syn-words">Words or phrases, comma-separated</label>
              <input
                id="syn-words"
                value={words}
                onInput={(e) => setWords(e.currentTarget.value)}
                placeholder="tee, t-shirt, tshirt"
              />
            </div>
          )
          : (
            <div class="inline">
              <div class="field">
                <label for="syn-word">Word</label>
                <input
                  id="syn-word"
                  value={word}
                  onInput={(e) => setWord(e.currentTarget.value)}
                  placeholder="nyc"
                />
              </div>
              <div class="field">
                <label for="syn-means">Also finds (comma-separated)</label>
                <input
                  id="syn-means"
                  value={means}
                  onInput={(e) => setMeans(e.currentTarget.value)}
                  placeholder="new york"
                />
              </div>
            </div>
          )}
        <div class="field">
          <label for="syn-q">Preview the results of</label>
          <input
            id="syn-q"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
            placeholder={query || "a query"}
          />
        </div>
        {error ? <p class="status error" role="alert" data-field-error>{error}</p> : null}
        <LeverPreview q={query} value={value} />
        <p class="actions">
          <button type="submit" class="button primary" disabled={!draft || !!error || full}>
            Add synonym
          </button>
          {full ? <span class="muted">The list is full ({p.limits.synonyms}).</span> : null}
        </p>
      </form>
    </div>
  );
}
