/**
 * Text → passages of at most `maxWords` words, for summary retrieval of pages and
 * documents. Cuts fall at headings and paragraph ends where possible: small
 * paragraphs are merged, a long one is cut at sentence ends, a longer sentence by words.
 */

interface Unit {
  words: string[];
  heading: boolean;
  /** First line of a paragraph (after a blank line, or the text's start). */
  paraStart: boolean;
  /** For a paragraph's first unit: the words of the whole paragraph. */
  paraWords: number;
}

const MD_HEADING = /^#{1,6}\s+\S/;
const SENTENCE_END = /[.!?:;…"”)\]]$/;

/** Splits text into passages; every word of the input appears once, in order. */
export function splitPassages(text: string, maxWords = 200): string[] {
  const max = Math.max(1, Math.floor(maxWords));
  const units = toUnits(text, max);
  // Below this size a passage is too thin to stand alone, so a heading does not cut it.
  const minWords = Math.max(1, Math.floor(max / 5));
  const passages: Unit[][] = [];
  let current: Unit[] = [];
  let count = 0;
  const flush = () => {
    if (current.length) passages.push(current);
    current = [];
    count = 0;
  };
  for (const u of units) {
    const n = u.words.length;
    const full = count + n > max;
    const atHeading = u.heading && count >= minWords;
    // A paragraph that fits in a passage of its own is not split across two.
    const atParagraph = u.paraStart && count + u.paraWords > max && u.paraWords <= max;
    if (current.length && (full || atHeading || atParagraph)) {
      // A heading never ends a passage: it moves on with the text it introduces.
      const carry: Unit[] = [];
      while (current.length > 1 && current.at(-1)!.heading) carry.unshift(current.pop()!);
      const carried = carry.reduce((s, c) => s + c.words.length, 0);
      if (carried + n > max) current.push(...carry.splice(0));
      flush();
      current = carry;
      count = carried;
    }
    current.push(u);
    count += n;
  }
  flush();
  return passages.map((p) => p.map((u) => u.words.join(" ")).join("\n"));
}

/** Lines as units, headings marked, units longer than `max` words cut into pieces. */
function toUnits(text: string, max: number): Unit[] {
  // Each line's words, once; an empty array stands for a blank line.
  const lines = text.split(/\r\n?|\n/).map((l) => {
    const t = l.trim();
    return t ? t.split(/\s+/) : [];
  });
  const units: Unit[] = [];
  let afterBlank = true;
  let para: Unit | null = null;
  for (let i = 0; i < lines.length; i++) {
    const words = lines[i];
    if (!words.length) {
      afterBlank = true;
      continue;
    }
    const next = lines[i + 1]?.length ?? 0;
    const last = words[words.length - 1];
    const heading = (words[0].length <= 6 && MD_HEADING.test(words[0] + " " + (words[1] ?? ""))) ||
      // A short line standing alone, or followed by a longer one, without a sentence's end.
      (words.length <= 12 && !SENTENCE_END.test(last) && (afterBlank && !next || next > 12));
    if (afterBlank) para = null;
    for (const [j, piece] of cut(words, max).entries()) {
      const unit: Unit = {
        words: piece,
        heading: heading && j === 0,
        paraStart: !para,
        paraWords: 0,
      };
      const first: Unit = para ??= unit;
      first.paraWords += piece.length;
      units.push(unit);
    }
    afterBlank = false;
  }
  return units;
}

/** Cuts a long line at sentence ends so no piece exceeds `max` words; words as a last resort. */
function cut(words: string[], max: number): string[][] {
  if (words.length <= max) return [words];
  const pieces: string[][] = [];
  let piece: string[] = [];
  let sentence: string[] = [];
  const endSentence = () => {
    if (piece.length + sentence.length > max && piece.length) {
      pieces.push(piece);
      piece = [];
    }
    while (sentence.length > max) pieces.push(sentence.splice(0, max));
    piece.push(...sentence);
    sentence = [];
  };
  for (const w of words) {
    sentence.push(w);
    if (/[.!?…]["”)\]]?$/.test(w)) endSentence();
  }
  endSentence();
  if (piece.length) pieces.push(piece);
  return pieces;
}
