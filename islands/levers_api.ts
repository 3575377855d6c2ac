/// <reference lib="dom" />
/** The levers' wire shapes and calls (GET/PUT lists, preview, suggestions), for the dashboard. */
import { HttpError, jsonBody, requestJson } from "./api.ts";
import { adminPath } from "./ui.tsx";
import type * as Wire from "../lib/wire_types.ts";
import type { PinWarning, SelfCheckRun, Suggestion } from "../lib/wire_types.ts";
export type { PinWarning, SelfCheckRun, Suggestion };

/** A list entry as the dashboard edits it: its id only once stored. */
type Draft<T> = T extends { id: string } ? Omit<T, "id"> & { id?: string } : never;
export type SynonymDraft = Draft<Wire.Synonym>;
export type CurationDraft = Draft<Wire.Curation>;
export type AnswerPinDraft = Draft<Wire.AnswerPin>;

/** Replaces the answer pins; answers them as stored (with ids). */
export function saveAnswerPins(siteId: string, answers: AnswerPinDraft[]) {
  return requestJson<{ answers: AnswerPinDraft[] }>(
    adminPath(siteId, "/answers"),
    jsonBody("PUT", { answers }),
  );
}

/** Runs the answers' self-check now. */
export function askSelfCheck(siteId: string) {
  return requestJson<SelfCheckRun>(adminPath(siteId, "/answers/selfcheck"), jsonBody("POST", {}));
}

export interface Limits {
  synonyms: number;
  wordsPerEntry: number;
  wordsPerPhrase: number;
  phraseChars: number;
  curations: number;
  pins: number;
  hides: number;
  queryChars: number;
  answers?: number;
  answerChars?: number;
  answerSources?: number;
}

export interface Brief {
  found: number;
  results: { title: string; url: string; pinned?: boolean }[];
}

export interface Preview {
  before: Brief;
  after: Brief;
  /** What a save would warn of the pins the draft adds (a page the site does not have). */
  warnings?: PinWarning[];
}

/** Replaces a list; answers it as stored (with ids) and, for curations, its warnings. */
export function putList<K extends "synonyms" | "curations">(
  siteId: string,
  kind: K,
  list: K extends "synonyms" ? SynonymDraft[] : CurationDraft[],
) {
  return requestJson<
    { synonyms?: SynonymDraft[]; curations?: CurationDraft[]; warnings?: PinWarning[] }
  >(
    adminPath(siteId, `/${kind}`),
    jsonBody("PUT", { [kind]: list }),
  );
}

/** A query's first results now and with unsaved lists (left out: as stored). */
export function previewLevers(
  siteId: string,
  q: string,
  lists: { synonyms?: SynonymDraft[]; curations?: CurationDraft[] },
  signal?: AbortSignal,
) {
  return requestJson<Preview>(adminPath(siteId, "/levers/preview"), {
    ...jsonBody("POST", { q, ...lists }),
    signal,
  });
}

export const fetchSuggestions = (siteId: string) =>
  requestJson<{ suggestions: Suggestion[] }>(adminPath(siteId, "/suggestions"));

export const dismiss = (siteId: string, s: Suggestion) =>
  requestJson<null>(
    adminPath(siteId, "/suggestions/dismissed"),
    jsonBody("POST", {
      kind: s.kind,
      query: s.query,
      ...(s.kind === "pin" ? { url: s.url } : { to: s.to }),
    }),
  );

type ListKind = "synonyms" | "curations" | "answers";
const ENTRY: Record<ListKind, string> = {
  synonyms: "synonym",
  curations: "curation",
  answers: "answer pin",
};

/**
 * An error of a list's field in words an owner reads ("synonyms[3].words[1] …" → "Word 2 …"):
 * the entry it is about goes without saying, any other is named by `name` (its query), else by
 * its number; "(curations[0])", the API's pointer to an entry already named, is left out.
 */
export function fieldMessage(
  e: unknown,
  name?: (kind: ListKind, i: number) => string | undefined,
): string {
  if (!(e instanceof HttpError)) return "Something went wrong. Try again.";
  return e.message.replace(/^(synonyms|curations|answers)\[\d+\]\.?/, "")
    .replace(
      /^(words|means|pin|hide)\[(\d+)\]/,
      (_, f, i) =>
        `${{ words: "Word", means: "Meaning", pin: "Pin", hide: "Hidden page" }[f as string]} ${
          Number(i) + 1
        }`,
    )
    .replace(/ \((synonyms|curations|answers)\[\d+\]\)/g, "")
    .replace(/\b(synonyms|curations|answers)\[(\d+)\]/g, (_, k: ListKind, i) => {
      const query = name?.(k, Number(i));
      return query ? `the ${ENTRY[k]} for “${query}”` : `${ENTRY[k]} ${Number(i) + 1}`;
    })
    .replace(/^\s*/, "").replace(/^./, (c) => c.toUpperCase());
}

/**
 * A query as no two entries may share: case, accents and spacing folded (the server folds as
 * much and more, so two queries equal here are equal there; it has the last word on save).
 */
export const leverQueryKey = (q: string) =>
  q.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().trim().split(/\s+/).join(" ");

/** Comma- or line-separated items, trimmed, empty ones dropped. */
export const items = (text: string) => text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
