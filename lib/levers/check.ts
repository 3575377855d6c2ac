/** Field checks for the levers' lists: each failure is a 400 naming the field ("synonyms[3].words[1]"). */
import { invalid } from "../errors.ts";
import { phraseKey } from "./normalise.ts";

/** What a given lever id may look like: short, and safe in a URL and in HTML (new ones: sites/keys.ts newId). */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

export type Fields = Record<string, unknown>;

/** `value` as an object with only the `allowed` fields, or a 400 naming `param`. */
export function record(value: unknown, param: string, allowed: string[]): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(param, `${param} must be an object.`);
  }
  for (const k of Object.keys(value)) {
    if (!allowed.includes(k)) {
      throw invalid(`${param}.${k}`, `${param}.${k} is not a field (${allowed.join(", ")}).`);
    }
  }
  return value as Fields;
}

/** `value` as an array of at most `max` items (at least `min`). */
export function list(value: unknown, param: string, max: number, min = 0): unknown[] {
  if (!Array.isArray(value)) throw invalid(param, `${param} must be an array.`);
  if (value.length > max) throw invalid(param, `${param} holds at most ${max} items.`);
  if (value.length < min) throw invalid(param, `${param} needs at least ${min} items.`);
  return value;
}

/** A trimmed, well-formed string of 1 to `max` characters. */
export function text(value: unknown, param: string, max: number): string {
  if (typeof value !== "string") throw invalid(param, `${param} must be a string.`);
  const s = value.trim();
  if (!s) throw invalid(param, `${param} must not be empty.`);
  if ([...s].length > max) throw invalid(param, `${param} must be at most ${max} characters.`);
  if (!s.isWellFormed()) throw invalid(param, `${param} is not valid text.`);
  return s;
}

/** A given id, checked, or undefined when none was given. */
export function givenId(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !ID_PATTERN.test(value)) {
    throw invalid(param, `${param} must be 1 to 40 letters, digits, _ or -.`);
  }
  return value;
}

/** Refuses an id used twice in one list. */
export function uniqueIds(ids: (string | undefined)[], field: string) {
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (id === undefined) return;
    if (seen.has(id)) throw invalid(`${field}[${i}].id`, `${field}[${i}].id repeats an id.`);
    seen.add(id);
  });
}

/**
 * Refuses two entries of one list for the same query and match (a curation's query, a pin's
 * question): `says(i, j)` words the refusal of entry `i`, which repeats entry `j`.
 */
export function oneEachQuery(
  entries: { query: string; match: string }[],
  field: string,
  says: (i: number, j: number) => string,
) {
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const key = `${e.match}:${phraseKey(e.query)}`;
    const j = seen.get(key);
    if (j !== undefined) throw invalid(`${field}[${i}].query`, says(i, j));
    seen.set(key, i);
  });
}

/** An entry's query (holding a word, at most `max` characters) and its match (exact by default). */
export function queryAndMatch(
  o: Fields,
  param: string,
  max: number,
): { query: string; match: "exact" | "contains" } {
  const query = text(o.query, `${param}.query`, max);
  if (!phraseKey(query)) throw invalid(`${param}.query`, `${param}.query must hold a word.`);
  const match = o.match ?? "exact";
  if (match !== "exact" && match !== "contains") {
    throw invalid(`${param}.match`, `${param}.match must be exact or contains.`);
  }
  return { query, match };
}
