/**
 * Markdown → plain text for uploaded documents. Regular expressions over the owner's
 * text, so it runs in the parser worker (parse_worker.ts) under its deadline.
 */

/**
 * Markdown as plain text, line by line: headings and paragraphs kept apart by blank
 * lines (where passages are cut), markup dropped, link and image text kept.
 */
export function markdownText(md: string): { text: string; title: string } {
  const lines = md.replace(/\r\n?/g, "\n").replace(/^---\n[\s\S]*?\n---\n/, "").split("\n");
  const out: string[] = [];
  let title = "";
  let fence: string | null = null;
  const block = (line: string) => out.push("", line, "");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const fenceMark = /^\s*(```|~~~)/.exec(raw)?.[1];
    if (fenceMark && (fence === null || fence === fenceMark)) {
      fence = fence === null ? fenceMark : null;
      out.push("");
      continue;
    }
    if (fence !== null) {
      out.push(raw);
      continue;
    }
    const atx = /^\s{0,3}#{1,6}(?:[ \t]|$)/.exec(raw);
    const setext = raw.trim() && /^\s{0,3}(=+|-+)\s*$/.test(lines[i + 1] ?? "");
    if (atx || setext) {
      const heading = inline(atx ? atxText(raw.slice(atx[0].length)) : raw.trim());
      title ||= heading;
      block(heading);
      if (setext) i++;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(raw)) { // thematic break
      out.push("");
      continue;
    }
    if (/^\s{0,3}\[[^\]]+\]:\s*\S/.test(raw)) continue; // link reference definition
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(raw)) continue; // table rule
    const line = raw
      .replace(/^\s*(>\s?)+/, "")
      .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, "")
      .replace(/^\s*\||\|\s*$/g, "")
      .replace(/\s*\|\s*/g, " · ");
    out.push(inline(line));
  }
  const text = out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
  return { text, title };
}

/**
 * An ATX heading's text: what follows its #s, without the closing #s (CommonMark: a run of
 * them after a space). By hand: `\s*#*\s*$` after a lazy group took time cubic in a line of
 * spaces.
 */
function atxText(rest: string): string {
  const text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  return end === 0 ? "" : /\s/.test(text[end - 1]) ? text.slice(0, end).trimEnd() : text;
}

/**
 * Inline Markdown → text: images and links by their text, emphasis and code marks dropped.
 * Every span a pattern looks across is bounded (a few hundred characters): an unclosed mark
 * then costs that much at most, not the rest of the line, whose length the owner chooses.
 */
function inline(s: string): string {
  return s
    .replace(/!\[([^\]]{0,256})\]\([^)]{0,512}\)/g, "$1")
    .replace(/\[([^\]]{1,256})\]\([^)]{0,512}\)/g, "$1")
    .replace(/\[([^\]]{1,256})\]\[[^\]]{0,256}\]/g, "$1")
    .replace(/`([^`]{1,512})`/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.{1,256}?)(?<=\S)\1/g, "$2")
    .replace(/(^|[^\w*])\*(?=\S)([^*]{1,256}?)(?<=\S)\*(?!\w)/g, "$1$2")
    .replace(/(^|[^\w])_(?=\S)([^_]{1,256}?)(?<=\S)_(?!\w)/g, "$1$2")
    .trim();
}
