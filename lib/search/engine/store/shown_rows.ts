/**
 * What a result shows of a page beside its text (its id, title, description and its sections'
 * lines), kept in the process for the rows of an index's columns: pages that answer many
 * queries are shown again and again, and decoding their fields and finding their sections'
 * lines each time was a sixth of presenting them. Only strings and arrays are kept, never a
 * view of an index's buffers (that would hold a dropped index's bytes), and at most
 * SHOWN_CHARS characters: those not shown for longest go first (second_chance.ts). A row is
 * kept when it is shown a second time: kept at once, the fields of the many pages shown once
 * outlived a young collection and were copied twice (a sixth of what the 200-site warm round
 * promoted), for nothing.
 */
import { Bitset } from "./bitset.ts";
import type { DocStore } from "./doc_store.ts";
import type { SectionLines } from "./packed_sections.ts";
import { type Turned, Turns } from "./second_chance.ts";

/** A row's shown fields, decoded. */
export interface ShownParts {
  id: string;
  title: string;
  description: string;
  accented: boolean;
  sections: SectionLines;
}

/** Characters kept at most (~2 MB of one-byte text, twice that for two-byte text). */
const SHOWN_CHARS = 1_000_000;
/** What an entry takes beside its strings, in characters: its objects and map entry. */
const ENTRY_CHARS = 100;

interface Entry extends Turned {
  parts: ShownParts;
  rows: Map<number, Entry>;
  row: number;
}

/** Per index, the rows shown so far. */
const shown = new WeakMap<DocStore, Bitset>();

/** Whether row `row` was shown before for `docs` (it is marked shown now). */
function shownBefore(docs: DocStore, row: number): boolean {
  let rows = shown.get(docs);
  if (!rows) shown.set(docs, rows = new Bitset());
  if (rows.has(row)) return true;
  rows.add(row);
  return false;
}

/** Each index's kept rows, by its documents (a dropped index's are forgotten in their turn). */
const kept = new WeakMap<DocStore, Map<number, Entry>>();
/** The entries kept, in their turns to be forgotten. */
const turns = new Turns<Entry>(SHOWN_CHARS, (e) => {
  if (e.rows.get(e.row) === e) e.rows.delete(e.row);
});

/** Row `row`'s shown parts, if they are kept for `docs`. */
export function keptShown(docs: DocStore, row: number): ShownParts | undefined {
  const entry = kept.get(docs)?.get(row);
  if (!entry) return undefined;
  entry.used = true;
  return entry.parts;
}

/**
 * Keeps row `row`'s shown parts for `docs` if it was shown before: a row is never rewritten,
 * so they stay true.
 */
export function keepShown(docs: DocStore, row: number, parts: ShownParts) {
  if (!shownBefore(docs, row)) return;
  let rows = kept.get(docs);
  if (!rows) kept.set(docs, rows = new Map());
  const s = parts.sections;
  const chars = ENTRY_CHARS + parts.id.length + parts.title.length +
    (parts.description?.length ?? 0) + s.headings.length + s.packed.anchors.length +
    4 * s.starts.length;
  const entry: Entry = { parts, chars, used: false, live: true, rows, row };
  rows.set(row, entry);
  turns.add(entry);
}
