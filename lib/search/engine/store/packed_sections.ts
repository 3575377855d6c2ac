/**
 * A page's sections as an index keeps them: every heading in one string and every anchor in
 * another, a line each (anchors "" when none has one), made into objects only for the pages a
 * search shows. A site of 40,000 pages has some 200,000 sections: two strings a page instead
 * of an object and a string or two a section is less memory, and far less for the GC to mark.
 */

export interface Section {
  heading: string;
  anchor: string;
}

export interface PackedSections {
  count: number;
  /** Headings, one a line. */
  headings: string;
  /** Anchors, one a line; "" when no section has one. */
  anchors: string;
}

/** One line of text: a line break inside a heading or anchor would shift every one after it. */
const oneLine = (s: string) => (s.includes("\n") ? s.replaceAll("\n", " ") : s);

/** Packs sections (none: undefined). */
export function packSections(sections: Section[] | undefined): PackedSections | undefined {
  if (!sections?.length) return undefined;
  const anchored = sections.some((s) => s.anchor);
  return {
    count: sections.length,
    headings: sections.map((s) => oneLine(s.heading)).join("\n"),
    anchors: anchored ? sections.map((s) => oneLine(s.anchor)).join("\n") : "",
  };
}

/** The sections again, as objects. */
export function unpackSections(p: PackedSections | undefined): Section[] {
  if (!p) return [];
  const headings = p.headings.split("\n");
  const anchors = p.anchors ? p.anchors.split("\n") : [];
  return headings.map((heading, i) => ({ heading, anchor: anchors[i] ?? "" }));
}

/** Lines of a text, counted, not split. */
function lines(s: string): number {
  let n = 1;
  for (let at = s.indexOf("\n"); at >= 0; at = s.indexOf("\n", at + 1)) n++;
  return n;
}

/** Whether packed sections hold `count` of each (a snapshot's bytes are not trusted). */
export function soundSections(p: PackedSections): boolean {
  return p.count > 0 && lines(p.headings) === p.count &&
    (p.anchors === "" || lines(p.anchors) === p.count);
}

/**
 * Where each section's heading line starts in the body, in reading order (-1 when it is not
 * a line of the body); worked out once, when the page is indexed.
 */
export function sectionOffsets(body: string, sections: Section[]): Int32Array {
  const out = new Int32Array(sections.length).fill(-1);
  let pos = 0;
  sections.forEach((s, i) => {
    if (!s.heading) return;
    let at = body.indexOf(s.heading, pos);
    while (
      at >= 0 &&
      !((at === 0 || body[at - 1] === "\n") &&
        (at + s.heading.length === body.length || body[at + s.heading.length] === "\n"))
    ) at = body.indexOf(s.heading, at + 1);
    if (at < 0) return;
    out[i] = at;
    pos = at + s.heading.length;
  });
  return out;
}

/**
 * A page's sections read in place, without an object or a string per section: heading `i`
 * is `headings` from `starts[i]` to `starts[i + 1] - 1` (a line each, as packed).
 */
export interface SectionLines {
  count: number;
  headings: string;
  /** Where each line starts in `headings`, and one more: its length + 1. */
  starts: number[];
  /** Its anchors, one a line ("" when no section has one), read only when asked for. */
  packed: Pick<PackedSections, "anchors">;
}

/** No sections. */
export const NO_SECTIONS: SectionLines = {
  count: 0,
  headings: "",
  starts: [0],
  packed: { anchors: "" },
};

/**
 * Packed sections read in place; none when their headings do not hold together (a bad row).
 * Their anchors are read only for the sections shown: where they do not match, `anchored`
 * says so.
 */
export function sectionLines(p: PackedSections | undefined, anchored = false): SectionLines {
  if (!p || p.count <= 0 || (!anchored && p.anchors !== "" && lines(p.anchors) !== p.count)) {
    return NO_SECTIONS;
  }
  // A plain array: a typed one of this size has its memory allocated outside the heap.
  const starts = [0];
  let i = 1;
  for (let at = p.headings.indexOf("\n"); at >= 0; at = p.headings.indexOf("\n", at + 1)) {
    if (i === p.count) return NO_SECTIONS; // more lines than sections
    starts.push(at + 1);
    i++;
  }
  if (i !== p.count) return NO_SECTIONS;
  starts.push(p.headings.length + 1);
  return { count: p.count, headings: p.headings, starts, packed: p };
}

/** Section `i`'s heading. */
export const headingAt = (l: SectionLines, i: number) =>
  l.headings.slice(l.starts[i], l.starts[i + 1] - 1);

/** Section `i`'s heading's length. */
export const headingLength = (l: SectionLines, i: number) => l.starts[i + 1] - 1 - l.starts[i];

/** Section `i`'s anchor ("" when none). */
export function anchorAt(l: SectionLines, i: number): string {
  const anchors = l.packed.anchors;
  if (!anchors) return "";
  let at = 0;
  for (let k = 0; k < i; k++) at = anchors.indexOf("\n", at) + 1;
  const end = anchors.indexOf("\n", at);
  return anchors.slice(at, end < 0 ? anchors.length : end);
}
