/**
 * JSON request bodies, read without ever holding up other requests for long: decoded,
 * checked for depth and parsed in slices that yield to the event loop, however large.
 */
import { DomainError } from "../errors.ts";
import { decodeInSlices, nextTurn, SLICE_MS, Slices } from "../slices.ts";

/** How deep arrays and objects may nest in a JSON body; deeper is a 400, never a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/** Work on a large body goes in slices of this many bytes or characters, yielding in between. */
const SLICE = 1 << 20;

/**
 * The body as text, decoded in slices so a large one never holds up other requests. Bytes
 * that are not UTF-8 become a lone surrogate escape (\udfff), so JSON.parse still reads the
 * body and each string that held them is not well formed: the field it belongs to can be
 * refused on its own (a page among many) rather than silently turned into U+FFFD.
 */
export async function jsonText(bytes: Uint8Array): Promise<string> {
  try {
    return await decodeInSlices(bytes, new TextDecoder("utf-8", { fatal: true }));
  } catch {
    return marked(bytes);
  }
}

/** The body with each byte that is not part of well-formed UTF-8 written as \udfff. */
function marked(bytes: Uint8Array): string {
  const out: string[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let from = 0;
  for (let i = 0; i < bytes.length;) {
    const n = utf8Length(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out.push(decoder.decode(bytes.subarray(from, i)), "\\udfff");
    from = ++i;
  }
  out.push(decoder.decode(bytes.subarray(from)));
  return out.join("");
}

/** Bytes of the well-formed UTF-8 sequence at `i`, or 0 when there is none. */
function utf8Length(b: Uint8Array, i: number): number {
  const c = b[i];
  const cont = (k: number) => i + k < b.length && (b[i + k] & 0xc0) === 0x80;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const c1 = b[i + 1];
    if (c === 0xe0 && c1 < 0xa0) return 0; // overlong
    if (c === 0xed && c1 > 0x9f) return 0; // surrogate
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const c1 = b[i + 1];
    if (c === 0xf0 && c1 < 0x90) return 0;
    if (c === 0xf4 && c1 > 0x8f) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** One array that is a member of the top-level object: its key and its elements' spans. */
interface MemberArray {
  key: string;
  start: number;
  end: number;
  elements: [number, number][];
}

/**
 * One pass over the text outside strings: the deepest nesting, and the spans of the elements
 * of arrays that are members of the top-level object (`{"pages":[…]}`), so each element can
 * be parsed on its own.
 */
async function scan(text: string): Promise<{ depth: number; arrays: MemberArray[] }> {
  let depth = 0, max = 0, inString = false, stringStart = 0, lastKey = "";
  const kinds: number[] = []; // bracket of each open level, as its char code
  const arrays: MemberArray[] = [];
  let current: MemberArray | null = null;
  let elementStart = 0;
  for (let i = 0; i < text.length; i++) {
    if (i % SLICE === SLICE - 1) await nextTurn();
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++; // backslash: skip the escaped character
      else if (ch === 34) {
        inString = false;
        if (depth === 1) lastKey = text.slice(stringStart, i + 1);
      }
    } else if (ch === 34) {
      inString = true;
      stringStart = i;
    } else if (ch === 91 || ch === 123) {
      kinds[depth] = ch;
      if (++depth > max) max = depth;
      if (depth === 2 && ch === 91 && kinds[0] === 123) {
        current = { key: lastKey, start: i, end: -1, elements: [] };
        elementStart = i + 1;
      }
    } else if (ch === 93 || ch === 125) {
      if (depth === 2 && current) {
        // "[]" has no element; "[1,]" keeps its empty last one, which then fails to parse.
        if (current.elements.length > 0 || text.slice(elementStart, i).trim()) {
          current.elements.push([elementStart, i]);
        }
        current.end = i + 1;
        arrays.push(current);
        current = null;
      }
      depth--;
    } else if (ch === 44 && depth === 2 && current) {
      current.elements.push([elementStart, i]);
      elementStart = i + 1;
    }
  }
  return { depth: max, arrays };
}

/**
 * A JSON body as a value: 400 INVALID_JSON when it does not parse or nests more than
 * MAX_JSON_DEPTH deep. A large body's member arrays are parsed element by element, in slices.
 */
export async function parseJsonBody(bytes: Uint8Array): Promise<unknown> {
  const text = await jsonText(bytes);
  const { depth, arrays } = await scan(text);
  if (depth > MAX_JSON_DEPTH) {
    throw new DomainError(
      "INVALID_JSON",
      `The body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.`,
    );
  }
  try {
    if (text.length < SLICE || arrays.length === 0) return JSON.parse(text);
    // The object with its member arrays left empty, then each array filled element by element.
    const skeleton: string[] = [];
    let at = 0;
    for (const a of arrays) {
      skeleton.push(text.slice(at, a.start), "[]");
      at = a.end;
    }
    skeleton.push(text.slice(at));
    const root = JSON.parse(skeleton.join("")) as Record<string, unknown>;
    const slices = new Slices(SLICE_MS.bulk);
    const filled = new Set<string>();
    // Last first: of two members with one name, JSON.parse keeps the last.
    for (const a of arrays.toReversed()) {
      const values: unknown[] = [];
      for (const [start, end] of a.elements) {
        values.push(JSON.parse(text.slice(start, end)));
        await slices.pause();
      }
      const key = JSON.parse(a.key) as string;
      // A later member of the same name that is not an array won in the skeleton: it stays.
      const placed = root[key];
      if (!filled.has(key) && Array.isArray(placed) && placed.length === 0) root[key] = values;
      filled.add(key);
    }
    return root;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw new DomainError("INVALID_JSON", "The body is not valid JSON.");
  }
}
