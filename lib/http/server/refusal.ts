/** Refusals, and the pieces of RFC 9110 grammar that the head and body parsers share. */

/** A request head the server answers itself (400, 414, 431, 501, 505...); the connection closes. */
export class Refusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = "Refusal";
  }
}

/**
 * A request body the server could not deliver whole: late (408), cut short or malformed (400),
 * or longer than any route takes (413). The app sees it thrown by the body stream.
 */
export class BodyError extends Error {
  constructor(readonly status: 400 | 408 | 413, message: string) {
    super(message);
    this.name = "BodyError";
  }
}

/** The characters of a token (RFC 9110 section 5.6.2), as a regular expression class. */
export const TCHAR = "[!#$%&'*+.^_`|~0-9A-Za-z-]";
/** A method, field-name or other token. */
export const TOKEN = new RegExp(`^${TCHAR}+$`);

/** A field line as RFC 9112 section 5 has it: no space before the colon, no obs-fold, no CTL. */
const FIELD_LINE = new RegExp(`^(${TCHAR}+):([\\t\\x20-\\x7e\\x80-\\xff]*)$`);

/** Name and value (OWS around it removed, nothing else) of a field line, or a 400. */
export function fieldLine(line: string): [string, string] {
  const m = FIELD_LINE.exec(line);
  if (!m) throw new Refusal(400, "A header line is malformed.");
  return [m[1], trimOws(m[2])];
}

/** `s` without leading and trailing SP and HTAB (String.trim would also take NBSP, VT, FF...). */
export function trimOws(s: string): string {
  let a = 0, b = s.length;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** The elements of a list-valued field (RFC 9110 section 5.6.1), empty ones dropped. */
export function listElements(value: string): string[] {
  const out: string[] = [];
  for (const part of value.split(",")) {
    const e = trimOws(part);
    if (e) out.push(e);
  }
  return out;
}
