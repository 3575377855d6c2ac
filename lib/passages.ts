/** Splits text into passages of about `maxWords` words for retrieval: at blank lines, merged and cut to size. */
export function splitPassages(text: string, maxWords = 200): string[] {
  const paragraphs = text.split(/\n\s*\n|\n(?=[^\n]{1,80}\n)/).map((p) => p.trim()).filter(Boolean);
  const out: string[] = [];
  let current: string[] = [];
  let words = 0;
  const flush = () => {
    if (current.length) out.push(current.join("\n"));
    current = [];
    words = 0;
  };
  for (const p of paragraphs) {
    const w = p.split(/\s+/);
    if (w.length > maxWords) {
      flush();
      for (let i = 0; i < w.length; i += maxWords) out.push(w.slice(i, i + maxWords).join(" "));
      continue;
    }
    if (words + w.length > maxWords) flush();
    current.push(p);
    words += w.length;
  }
  flush();
  return out;
}
